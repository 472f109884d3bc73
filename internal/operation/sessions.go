package operation

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// closeTimeout bounds each provider's Close (a vCenter logout, a libvirt
// disconnect) at the end of a command.
const closeTimeout = 30 * time.Second

// CloseProviders ends every provider's session; a failure is a warning:
// the command's own outcome stands.
func (o *Operation) CloseProviders(provs map[string]providers.Provider) {
	keys := make([]string, 0, len(provs))
	for k := range provs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		if err := provs[k].Close(ctx); err != nil {
			fmt.Fprintf(o.Stderr, "Warning: provider %s: close: %v\n", k, err)
		}
		cancel()
	}
}

// CheckCapabilities refuses a plan that asks a back end for what it cannot
// do, with diagnostics on the spec lines that ask.
func (o *Operation) CheckCapabilities(lab *spec.Lab, p *plan.Plan, provs map[string]providers.Provider) error {
	diags := plan.CheckCapabilities(p, lab, func(key string) (providers.Capabilities, bool) {
		prov, ok := provs[key]
		if !ok {
			return providers.Capabilities{}, false
		}
		return prov.Capabilities(), true
	})
	o.diagnose(lab, diags)
	if diags.HasErrors() {
		return ErrReported
	}
	return nil
}

// WarnTemplateDrift compares each machine's template identity, as its
// provider reports it now, with the one the lab's lock file pinned, and
// warns about each that changed, naming the template. Without a lock file
// there is nothing to compare (and nothing is dialled).
//
// First, providers that can check cheaply whether a template exists
// (providers.TemplateChecker) are asked once per template: a misspelt one
// fails the plan.
func (o *Operation) WarnTemplateDrift(ctx context.Context, p *plan.Plan, provs map[string]providers.Provider) error {
	if err := checkTemplates(ctx, p, provs); err != nil {
		return err
	}
	lock, _, err := lockfile.Read(o.Dir)
	if err != nil || lock == nil {
		return err
	}
	for _, grp := range p.Groups {
		for _, m := range grp.Machines() {
			prov, ok := provs[grp.ProviderKeyFor(m.Address)]
			if !ok {
				continue
			}
			pinned := lock.Machines[m.Address].Template
			if pinned == "" {
				continue
			}
			now, err := prov.TemplateID(ctx, m)
			if err != nil {
				fmt.Fprintf(o.Stderr, "Warning: %s: cannot read the identity of template %q to compare with %s: %v\n",
					m.Address, m.Template.Name, lockfile.FileName, err)
				continue
			}
			if now != pinned {
				fmt.Fprintf(o.Stderr, "Warning: template %q of %s changed since %s pinned it:\n  pinned: %s\n  now:    %s\n"+
					"  Results will not be comparable with the locked ones; `lab init -upgrade` accepts the new template after a run.\n",
					m.Template.Name, m.Address, lockfile.FileName, pinned, now)
			}
		}
	}
	return nil
}

// checkTemplates asks each provider that implements
// providers.TemplateChecker whether each template its machines use exists.
func checkTemplates(ctx context.Context, p *plan.Plan, provs map[string]providers.Provider) error {
	seen := map[string]bool{}
	for _, grp := range p.Groups {
		for _, m := range grp.Machines() {
			c, ok := provs[grp.ProviderKeyFor(m.Address)].(providers.TemplateChecker)
			if !ok {
				continue
			}
			key := grp.ProviderKeyFor(m.Address) + "\x00" + m.Template.Source
			if seen[key] {
				continue
			}
			seen[key] = true
			if err := c.CheckTemplate(ctx, m); err != nil {
				return fmt.Errorf("%s: template %q: %w", m.Address, m.Template.Name, err)
			}
		}
	}
	return nil
}
