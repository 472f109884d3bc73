package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// fp is a hand-made footprint: "h0 h1" is hosts h0 and h1, "*" everything.
func fp(s string) providers.Footprint {
	if s == "*" {
		return providers.Footprint{}
	}
	return providers.FootprintOf(strings.Fields(s)...)
}

// TestSchedule runs units with hand-made footprints and checks the
// isolation rule on every start: no unit starts while one whose footprint
// meets its own is in flight (so everything runs alone), never more than
// max at once, each resource's units start in the plan's order, and the
// first walk — which starts its units before any can finish, so what it
// starts is fixed — starts exactly the units the rule allows.
func TestSchedule(t *testing.T) {
	tests := []struct {
		name  string
		max   int
		known []string // footprints by unit, in run order
		fresh map[int]string
		fail  map[int]bool
		// firstWave is what the first walk starts; wantErr, when set,
		// the error and the units that never start.
		firstWave []int
		wantErr   string
		never     []int
	}{
		{name: "8 runs on 4 hosts, 4 at once", max: 4, known: []string{"h0", "h1", "h2", "h3", "h0", "h1", "h2", "h3"},
			firstWave: []int{0, 1, 2, 3}},
		{name: "bounded by max", max: 2, known: []string{"h0", "h1", "h2", "h3"}, firstWave: []int{0, 1}},
		{name: "everything serialises", max: 4, known: []string{"h0", "*", "h1", "h2"}, firstWave: []int{0}},
		{name: "everything first runs alone", max: 4, known: []string{"*", "h0", "h1"}, firstWave: []int{0}},
		{name: "a waiting run blocks later runs of its hosts", max: 4, known: []string{"h0", "h0 h1", "h1", "h2"},
			firstWave: []int{0, 3}},
		{name: "pairs sharing a machine conflict, a segment too", max: 4,
			known: []string{"a b seg-ab", "c d seg-cd", "b c seg-bc", "e f seg-ab"}, firstWave: []int{0, 1}},
		{name: "re-check: a footprint that grew to everything waits, and so does every later run", max: 4,
			known: []string{"h0", "h1", "h2"}, fresh: map[int]string{1: "*"}, firstWave: []int{0}},
		{name: "re-check: a footprint that moved to a busy host waits", max: 4,
			known: []string{"h0", "h1", "h2"}, fresh: map[int]string{1: "h0"}, firstWave: []int{0, 2}},
		{name: "an error: nothing more starts, the first error returned", max: 2, known: []string{"h0", "h1", "h0", "h1"},
			fail: map[int]bool{0: true, 1: true}, firstWave: []int{0, 1}, wantErr: " failed", never: []int{2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			known := make([]providers.Footprint, len(tc.known))
			for i, s := range tc.known {
				known[i] = fp(s)
			}
			current := func(i int) providers.Footprint {
				if s, ok := tc.fresh[i]; ok {
					return fp(s)
				}
				return known[i]
			}
			var mu sync.Mutex
			var starts, firstWave []int
			wave := true
			inflight := map[int]bool{}
			err := schedule(context.Background(), tc.max, len(known), scheduleFuncs{
				footprint: func(i int, fresh bool) providers.Footprint {
					if fresh {
						return current(i)
					}
					return known[i]
				},
				started: func(i int, f providers.Footprint, with []int) {
					mu.Lock()
					defer mu.Unlock()
					if !slices.Equal(f.Resources, current(i).Resources) {
						t.Errorf("unit %d started with footprint %s, not its fresh one %s", i, f, current(i))
					}
					// A unit that returned may still be in with (the
					// scheduler has not heard yet), never the reverse.
					for j := range inflight {
						if !slices.Contains(with, j) {
							t.Errorf("unit %d started with unit %d in flight, told only %v", i, j, with)
						}
					}
					for _, j := range with {
						if current(j).Meets(f) {
							t.Errorf("unit %d (%s) started while unit %d (%s) is in flight", i, f, j, current(j))
						}
					}
					if len(with) >= tc.max {
						t.Errorf("unit %d started with %d in flight, max %d", i, len(with), tc.max)
					}
					for _, j := range starts {
						if j > i && current(j).Meets(f) {
							t.Errorf("unit %d (%s) started after unit %d (%s), which comes later in the plan", i, f, j, current(j))
						}
					}
					// The first walk starts units before it sees any
					// finish: each starts with all the earlier ones in
					// flight, which no later start does.
					if wave = wave && len(with) == len(starts); wave {
						firstWave = append(firstWave, i)
					}
					inflight[i] = true
					starts = append(starts, i)
				},
				run: func(i int) error {
					time.Sleep(time.Millisecond)
					mu.Lock()
					defer mu.Unlock()
					delete(inflight, i) // before the scheduler hears of it
					if tc.fail[i] {
						return fmt.Errorf("unit %d failed", i)
					}
					return nil
				},
			})
			if !slices.Equal(firstWave, tc.firstWave) {
				t.Errorf("first walk started %v, want %v", firstWave, tc.firstWave)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			want := len(known) - len(tc.never)
			if len(starts) != want || slices.ContainsFunc(tc.never, func(i int) bool { return slices.Contains(starts, i) }) {
				t.Errorf("started %v; want all but %v", starts, tc.never)
			}
		})
	}
}

// footprintProvider is the fake back end with footprints: each machine on
// the host its address maps to ("" or absent: unknown).
type footprintProvider struct {
	*fakeProvider
	hosts map[string]string
}

func (f *footprintProvider) Footprint(_ context.Context, in machine.Instance) (providers.Footprint, error) {
	if h := f.hosts[in.Address]; h != "" {
		return providers.FootprintOf("host " + h), nil
	}
	return providers.Footprint{}, nil
}

// pairsPlan is a plan of one group per pair, runs runs each, numbered
// round-robin across the pairs (as a random order interleaves them).
func pairsPlan(pairs []string, runs int) *plan.Plan {
	p := &plan.Plan{}
	for k, name := range pairs {
		addr := "pair." + name
		g := &plan.Group{Address: addr, Pair: name, ProviderKey: "fake.x", ProviderType: "fake", Shape: "s1",
			Link:   providers.LinkSpec{Address: addr + ".link", LabID: "t", Name: "t-" + name},
			Server: machine.Machine{Address: addr + ".server", Role: "server", Name: "t-" + name + "-s"},
			Client: machine.Machine{Address: addr + ".client", Role: "client", Name: "t-" + name + "-c"}}
		for i := 0; i < runs; i++ {
			g.Runs = append(g.Runs, plan.Run{Index: 1 + i*len(pairs) + k, Experiment: "e", Pair: name, Group: addr,
				CellKey: fmt.Sprintf("n=%d", i), Repeat: 1, Spec: specWithMTU(1500)})
		}
		p.Groups = append(p.Groups, g)
		for _, a := range []struct{ addr, kind string }{{g.Link.Address, "link"}, {g.Server.Address, "machine"}, {g.Client.Address, "machine"}} {
			p.Actions = append(p.Actions, plan.Action{Op: plan.OpCreate, Address: a.addr, Kind: a.kind, Group: addr})
		}
	}
	return p
}

// meetRunner is fakeRunner with a benchmark window (Raw.Start, Raw.End, as
// the real runners write them): the first runs of pairs p and q each wait
// in their benchmark until the other has started its own, so their
// measured windows intersect however the goroutines are scheduled.
type meetRunner struct {
	fakeRunner
	p, q chan struct{} // closed as p's and q's first benchmarks start
	once map[string]*sync.Once
}

func newMeetRunner() meetRunner {
	return meetRunner{p: make(chan struct{}), q: make(chan struct{}), once: map[string]*sync.Once{"p": {}, "q": {}}}
}

func (r meetRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	raw := bench.Raw{Client: "ok", Start: time.Now()}
	pair := pairOf(c)
	if once := r.once[pair]; once != nil {
		mine, other := r.p, r.q
		if pair == "q" {
			mine, other = r.q, r.p
		}
		first := false
		once.Do(func() { first = true; close(mine) })
		if first {
			select {
			case <-other:
			case <-ctx.Done():
				return raw, ctx.Err()
			}
		}
	}
	raw.End = time.Now()
	return raw, ctx.Err()
}

// TestRunsAtOnceRecords applies three pairs — p and q on hosts of their
// own, r on a host lab cannot prove — with runs at once: every run is
// recorded once, each record names its footprint and the runs it
// overlapped, none of which shares a host with it; p's and q's first runs
// (started by the first walk, their benchmarks meeting) overlap; r's runs
// overlap nothing. One at a time, the records carry neither.
func TestRunsAtOnceRecords(t *testing.T) {
	hosts := map[string]string{"pair.p.server": "h0", "pair.p.client": "h0", "pair.q.server": "h1", "pair.q.client": "h1",
		"pair.r.server": "h2", "pair.r.client": ""}
	for _, n := range []int{1, 4} {
		t.Run(fmt.Sprintf("runs-at-once=%d", n), func(t *testing.T) {
			prov := &footprintProvider{fakeProvider: newFake(), hosts: hosts}
			e, res, _ := newEngine(prov.fakeProvider, fakeOS{}, fakeRunner{})
			e.Providers["fake.x"] = prov
			e.RunsAtOnce = n
			if n > 1 {
				meet := newMeetRunner()
				e.Runner = func(string) (bench.Runner, error) { return meet, nil }
			}
			out, err := e.Apply(context.Background(), context.Background(), pairsPlan([]string{"p", "q", "r"}, 3))
			if err != nil {
				t.Fatal(err)
			}
			if out.Runs != 9 || len(res.recs) != 9 {
				t.Fatalf("%d runs, %d records, want 9", out.Runs, len(res.recs))
			}
			want := map[string]string{"p": "host h0", "q": "host h1", "r": "everything"}
			sawPQ := false
			for _, rec := range res.recs {
				pv := rec.Provenance
				if n == 1 {
					if pv.Footprint != nil || pv.Overlapped != nil {
						t.Errorf("one at a time, record %s %s has footprint %v, overlapped %v", rec.Pair, rec.CellKey, pv.Footprint, pv.Overlapped)
					}
					continue
				}
				if got := strings.Join(pv.Footprint, ", "); got != want[rec.Pair] {
					t.Errorf("record %s %s: footprint %q, want %q", rec.Pair, rec.CellKey, got, want[rec.Pair])
				}
				for _, o := range pv.Overlapped {
					if o.Pair == rec.Pair || rec.Pair == "r" || o.Pair == "r" {
						t.Errorf("record %s %s overlapped %s %s (footprint %v)", rec.Pair, rec.CellKey, o.Pair, o.CellKey, o.Footprint)
					}
					if rec.Pair == "p" && rec.CellKey == "n=0" && o.Pair == "q" && o.CellKey == "n=0" && strings.Join(o.Footprint, ",") == "host h1" {
						sawPQ = true
					}
				}
			}
			if n > 1 && !sawPQ {
				t.Error("p's first run does not list q's first run as overlapped")
			}
		})
	}
}

// TestGroupFootprint: a group's footprint is its machines' hosts, the
// segment between them when its ends are on different hosts, and the
// group; one machine lab cannot place makes it everything.
func TestGroupFootprint(t *testing.T) {
	tests := []struct {
		name           string
		server, client string
		// clientProvider, when set, makes the client (a cross pair):
		// "footprints" answers as the server's, "none" has no Footprint.
		clientProvider string
		want           string
	}{
		{name: "one host", server: "h0", client: "h0", want: "host h0, lab group pair.p"},
		{name: "two hosts and the segment between them", server: "h0", client: "h1",
			want: "host h0, host h1, lab group pair.p, segment host h0 | host h1"},
		{name: "a client nowhere known", server: "h0", want: "everything"},
		{name: "cross pair: each end asked of its own provider", server: "h0", client: "h1", clientProvider: "footprints",
			want: "host h0, host h1, lab group pair.p, segment host h0 | host h1"},
		{name: "cross pair: a client provider without footprints", server: "h0", client: "h1", clientProvider: "none", want: "everything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hosts := map[string]string{"pair.p.server": tc.server, "pair.p.client": tc.client}
			prov := &footprintProvider{fakeProvider: newFake(), hosts: map[string]string{"pair.p.server": tc.server}}
			e, _, _ := newEngine(prov.fakeProvider, fakeOS{}, fakeRunner{})
			e.Providers["fake.x"] = prov
			g := pairsPlan([]string{"p"}, 1).Groups[0]
			switch tc.clientProvider {
			case "":
				prov.hosts = hosts
			case "footprints":
				e.Providers["fake.y"] = &footprintProvider{fakeProvider: newFake(), hosts: hosts}
			case "none":
				e.Providers["fake.y"] = newFake()
			}
			if tc.clientProvider != "" {
				g.ClientProviderKey, g.ClientProviderType = "fake.y", "fake"
			}
			l := &live{group: g, server: machine.Instance{Address: g.Server.Address}, client: machine.Instance{Address: g.Client.Address}}
			fp, err := e.groupFootprint(context.Background(), l)
			if err != nil || fp.String() != tc.want {
				t.Errorf("footprint %q (%v), want %q", fp, err, tc.want)
			}
		})
	}
}
