package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// countingProvider counts connections per machine.
type countingProvider struct {
	*fakeProvider
	mu    sync.Mutex
	conns map[string]int
}

func (c *countingProvider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	c.mu.Lock()
	c.conns[in.Address]++
	c.mu.Unlock()
	return c.fakeProvider.Connect(ctx, in)
}

// TestRunsFollowThePlansOrderAcrossGroups: runs interleaved across two
// pairs (the Index of a random order) run in that order, each on its own
// pair's machines, which are connected once for the whole apply; a plan
// numbered group by group (every plan saved before) runs group by group.
func TestRunsFollowThePlansOrderAcrossGroups(t *testing.T) {
	tests := []struct {
		name    string
		indexes [2][]int // of the runs of pair p and pair q
		want    string   // pairs of the records, in order
	}{
		{"interleaved", [2][]int{{1, 3, 4}, {2, 5, 6}}, "p q p p q q"},
		{"group by group", [2][]int{{1, 2, 3}, {4, 5, 6}}, "p p p q q q"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prov := &countingProvider{fakeProvider: newFake(), conns: map[string]int{}}
			e, res, _ := newEngine(prov.fakeProvider, fakeOS{}, fakeRunner{})
			e.Providers["fake.x"] = prov
			p := testPlan(3, 1500)
			q := testPlan(3, 1500)
			g := q.Groups[0]
			g.Address, g.Pair = "pair.q", "q"
			g.Link.Address, g.Server.Address, g.Client.Address = "pair.q.link", "pair.q.server", "pair.q.client"
			p.Groups = append(p.Groups, g)
			for i, g := range p.Groups {
				for j := range g.Runs {
					g.Runs[j].Index, g.Runs[j].Pair, g.Runs[j].Group = tc.indexes[i][j], g.Pair, g.Address
				}
				for _, a := range q.Actions {
					if i == 1 {
						a.Address, a.Group = strings.Replace(a.Address, "pair.p", "pair.q", 1), g.Address
						p.Actions = append(p.Actions, a)
					}
				}
			}
			if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range res.recs {
				got = append(got, r.Pair)
				if want := "pair." + r.Pair + ".server"; r.Provenance.ServerMachine != want {
					t.Errorf("run of pair %s ran on %s, want %s", r.Pair, r.Provenance.ServerMachine, want)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("records of pairs %v, want %s", got, tc.want)
			}
			for _, addr := range []string{"pair.p.server", "pair.p.client", "pair.q.server", "pair.q.client"} {
				if prov.conns[addr] != 1 {
					t.Errorf("%s connected %d times, want once for the whole apply", addr, prov.conns[addr])
				}
			}
		})
	}
}
