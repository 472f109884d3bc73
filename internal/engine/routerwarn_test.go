package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// routedPlan is testPlan's pair going via a router guest on a second link.
func routedPlan(runs int) *plan.Plan {
	p := testPlan(runs, 1500)
	g := p.Groups[0]
	g.ClientLink = &providers.LinkSpec{Address: "pair.p.link2", LabID: "t", Name: "t-p-2"}
	g.Router = &machine.Machine{Address: "pair.p.router", Role: "router", Name: "t-p-r"}
	for _, a := range []struct{ addr, kind string }{{"pair.p.link2", "link"}, {"pair.p.router", "machine"}} {
		p.Actions = append(p.Actions, plan.Action{Op: plan.OpCreate, Address: a.addr, Kind: a.kind, Group: g.Address})
	}
	return p
}

// routedFake is the fake back end that can put a router between the ends.
type routedFake struct{ *fakeProvider }

func (f routedFake) Capabilities() providers.Capabilities {
	c := f.fakeProvider.Capabilities()
	c.RoutedPairs = true
	return c
}

// A router's setting that does not take effect (strict = false) is shown
// as a warning event naming the router, as the two ends' are (issue 21
// §6: the events covered server and client only), and is recorded.
func TestRouterWarningsAreEvents(t *testing.T) {
	prov := newFake()
	e, res, events := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = routedFake{prov}
	e.OS = func(string) (guest.OS, error) { return mtuCapOS{max: 1500}, nil }
	p := routedPlan(1)
	r := &p.Groups[0].Runs[0]
	r.Spec.Router = guest.Settings{MTU: 9000}
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, ev := range *events {
		if ev.Type == EvWarning {
			warned = append(warned, ev.Address+": "+ev.Message)
		}
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "pair.p.router: ") || !strings.Contains(warned[0], "mtu") {
		t.Errorf("warning events %q, want one for pair.p.router's mtu", warned)
	}
	if len(res.recs) != 1 || res.recs[0].Observed.Router == nil || len(res.recs[0].Observed.Router.Warnings) != 1 {
		t.Errorf("records: %+v", res.recs)
	}
}
