package operation

import (
	"context"
	"fmt"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
)

// PlanNetworkChanges asks each provider that implements
// providers.NetworkPlanner what each link of the plan would change on its
// hosts (a shared switch's MTU), and records it in the plan so plan and
// apply show it before anything changes. A provider that cannot tell —
// or reports that apply would refuse — fails the plan.
func PlanNetworkChanges(ctx context.Context, p *plan.Plan, provs map[string]providers.Provider) error {
	p.NetworkChanges = nil
	for _, grp := range p.Groups {
		links := []providers.LinkSpec{grp.Link}
		if grp.ClientLink != nil {
			links = append(links, *grp.ClientLink)
		}
		for _, l := range links {
			// A cross pair's two sides are two providers'.
			np, ok := provs[grp.ProviderKeyFor(l.Address)].(providers.NetworkPlanner)
			if !ok {
				continue
			}
			changes, err := np.PlanLink(ctx, l)
			if err != nil {
				return fmt.Errorf("%s: %w", l.Address, err)
			}
			p.NetworkChanges = append(p.NetworkChanges, changes...)
		}
	}
	return nil
}
