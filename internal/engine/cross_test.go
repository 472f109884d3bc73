package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// onNetwork is a fake back end whose machines sit on an existing network,
// so it can make one end of a cross pair; its transports log every
// command, and fail those that start with failing.
type onNetwork struct {
	*fakeProvider
	cmds    *cmdLog
	failing string
}

type cmdLog struct {
	mu   sync.Mutex
	cmds []string
}

func (p onNetwork) Capabilities() providers.Capabilities {
	c := p.fakeProvider.Capabilities()
	c.ExistingNetwork, c.LinkMTU = true, false
	return c
}

func (p onNetwork) Connect(_ context.Context, in machine.Instance) (guest.Transport, error) {
	return logTransport{nopTransport{in.Address}, p.cmds, p.failing}, nil
}

type logTransport struct {
	nopTransport
	log     *cmdLog
	failing string
}

func (t logTransport) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	line := t.name + ": " + strings.Join(c.Argv, " ")
	t.log.mu.Lock()
	t.log.cmds = append(t.log.cmds, line)
	t.log.mu.Unlock()
	if t.failing != "" && strings.HasPrefix(strings.Join(c.Argv, " "), t.failing) {
		return guest.Result{}, errors.New("exit status 1")
	}
	return guest.Result{}, nil
}

// crossPlan is one pair whose server fake.a makes and whose client fake.b
// makes, with a run per MTU given.
func crossPlan(mtus ...int) *plan.Plan {
	p := testPlan(len(mtus), 0)
	g := p.Groups[0]
	g.ProviderKey, g.ClientProviderKey, g.ClientProviderType = "fake.a", "fake.b", "fakeb"
	g.ClientLink = &providers.LinkSpec{Address: "pair.p.client_link", LabID: "t", Name: "t-p-c"}
	for i, mtu := range mtus {
		g.Runs[i].Spec = specWithMTU(mtu)
	}
	p.Actions = append(p.Actions[:1], append([]plan.Action{{Op: plan.OpCreate, Address: "pair.p.client_link", Kind: "link", Group: g.Address}}, p.Actions[1:]...)...)
	return p
}

// TestCrossPair: each end of a cross pair, and its side of the link, is
// made, recorded in state under, and deleted by its own provider; the path
// between the ends is probed from the client once per MTU, before that
// MTU's first run; a path that does not carry the MTU fails those runs.
func TestCrossPair(t *testing.T) {
	for _, tc := range []struct {
		name, failing string
		wantPings     []string
		wantErr       string
	}{
		{name: "path carries both MTUs", wantPings: []string{
			"pair.p.client: ping -n -q -M do -s 8972 -c 3 -i 0.2 -W 2 198.18.0.1",
			"pair.p.client: ping -n -q -M do -s 1472 -c 3 -i 0.2 -W 2 198.18.0.1"}},
		{name: "path does not carry 9000", failing: "ping -n -q -M do -s 8972", wantErr: "2 of 3 runs failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmds := &cmdLog{}
			a := onNetwork{newFake(), cmds, tc.failing}
			b := onNetwork{newFake(), cmds, tc.failing}
			e, res, _ := newEngine(a.fakeProvider, fakeOS{}, fakeRunner{})
			e.Providers = map[string]providers.Provider{"fake.a": a, "fake.b": b}
			e.Keep = true
			_, err := e.Apply(context.Background(), context.Background(), crossPlan(9000, 9000, 1500))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			var keys []string
			for _, r := range e.State.Resources {
				keys = append(keys, r.Address+"@"+r.ProviderKey)
			}
			slices.Sort(keys)
			if got := strings.Join(keys, " "); got != "pair.p.client@fake.b pair.p.client_link@fake.b pair.p.link@fake.a pair.p.server@fake.a" {
				t.Errorf("state: %s", got)
			}
			if fmt.Sprint(len(a.exists), len(b.exists)) != "2 2" || !b.exists["pair.p.client"] || !b.exists["pair.p.client_link"] {
				t.Errorf("fake.a has %v, fake.b %v", a.exists, b.exists)
			}
			var pings []string
			for _, c := range cmds.cmds {
				if strings.Contains(c, ": ping ") {
					pings = append(pings, c)
				}
			}
			if tc.wantPings != nil && strings.Join(pings, "\n") != strings.Join(tc.wantPings, "\n") {
				t.Errorf("probes:\n%s\nwant:\n%s", strings.Join(pings, "\n"), strings.Join(tc.wantPings, "\n"))
			}
			for _, r := range res.recs {
				failed := strings.HasPrefix(r.Error, "path MTU: pair.p.client cannot reach pair.p.server (198.18.0.1) with 9000-byte packets")
				if want := tc.failing != "" && r.Intent.Server.MTU == 9000; failed != want {
					t.Errorf("run at MTU %d: error %q", r.Intent.Server.MTU, r.Error)
				}
			}

			// Destroy asks each resource's own provider.
			if err := e.Destroy(context.Background(), machine.Owner{Lab: "t"}, false); err != nil {
				t.Fatal(err)
			}
			if len(a.exists)+len(b.exists) != 0 {
				t.Errorf("left after destroy: %v %v", a.exists, b.exists)
			}
		})
	}
}
