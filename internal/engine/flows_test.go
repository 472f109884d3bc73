package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// flowRunner stands in for a benchmark whose server takes delay[pair] to
// listen (pair from the client's machine address); gated says whether it
// waits at the start gate then (as bench/iperf3 does) or, like a runner
// that is not a bench.StartGater, leaves the engine to wait before Run.
type flowRunner struct {
	delay map[string]time.Duration
	fail  map[string]bool // fails before its client starts
}

func pairOf(ep bench.Endpoint) string { return strings.Split(ep.T.Name(), ".")[1] }

func (r flowRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	time.Sleep(r.delay[pairOf(c)]) // the server starting
	if r.fail[pairOf(c)] {
		return bench.Raw{}, errors.New("iperf3 server did not listen")
	}
	return clientRun(ctx)
}

func (r flowRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 1e9}, nil
}

// gatedRunner is flowRunner waiting at the start gate once its server
// listens.
type gatedRunner struct{ flowRunner }

func (r gatedRunner) GatesStart() bool { return true }

func (r gatedRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	time.Sleep(r.delay[pairOf(c)])
	if r.fail[pairOf(c)] {
		return bench.Raw{}, errors.New("iperf3 server did not listen")
	}
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	return clientRun(ctx)
}

// clientRun is a client that runs 50 ms.
func clientRun(ctx context.Context) (bench.Raw, error) {
	raw := bench.Raw{Start: time.Now(), Client: "ok"}
	time.Sleep(50 * time.Millisecond)
	raw.End = time.Now()
	return raw, ctx.Err()
}

// flowsPlan is two pairs, p and q, whose runs of cells×repeats are
// concurrent flows, adjacent in the run order.
func flowsPlan(cells int) *plan.Plan {
	p := testPlan(cells, 1500)
	q := testPlan(cells, 1500)
	g := q.Groups[0]
	g.Address, g.Pair = "pair.q", "q"
	g.Link.Address, g.Server.Address, g.Client.Address = "pair.q.link", "pair.q.server", "pair.q.client"
	p.Groups = append(p.Groups, g)
	for _, a := range q.Actions {
		a.Address, a.Group = strings.Replace(a.Address, "pair.p", "pair.q", 1), g.Address
		p.Actions = append(p.Actions, a)
	}
	for i, g := range p.Groups {
		for j := range g.Runs {
			r := &g.Runs[j]
			r.Index, r.Pair, r.Group, r.CellIndex = 2*j+i+1, g.Pair, g.Address, j
			r.Flows = []string{"p", "q"}
		}
	}
	return p
}

// TestConcurrentFlows: the flows of a cell run at the same moment, their
// clients released together once every server listens; each is recorded
// with the pairs it ran with and the skew; a flow that fails before its
// client starts does not hold the other back; a skew above MaxFlowSkew is
// warned about.
func TestConcurrentFlows(t *testing.T) {
	slowQ := map[string]time.Duration{"q": 150 * time.Millisecond}
	tests := []struct {
		name    string
		runner  bench.Runner
		failed  string // pair whose flows fail
		maxSkew time.Duration
		minSkew time.Duration
		warned  bool
		overlap bool // the clients' [start, end] intervals overlap
	}{
		{name: "gated: aligned though q's server is slow", runner: gatedRunner{flowRunner{delay: slowQ}}, maxSkew: 30 * time.Millisecond, overlap: true},
		{name: "not gated: the engine waits before Run, q's server start is skew", runner: flowRunner{delay: slowQ},
			minSkew: 120 * time.Millisecond, maxSkew: time.Second, warned: true},
		{name: "q fails before its client: p runs anyway", runner: gatedRunner{flowRunner{delay: slowQ, fail: map[string]bool{"q": true}}},
			failed: "q", maxSkew: time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, res, events := newEngine(newFake(), fakeOS{}, fakeRunner{})
			e.Runner = func(string) (bench.Runner, error) { return tc.runner, nil }
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			out, err := e.Apply(ctx, context.Background(), flowsPlan(2))
			if tc.failed == "" && err != nil {
				t.Fatal(err)
			}
			if out.Runs != 4 {
				t.Fatalf("%d runs recorded, want 4", out.Runs)
			}
			byCell := map[int][]results.Record{}
			for _, r := range res.recs {
				byCell[r.CellIndex] = append(byCell[r.CellIndex], r)
			}
			for cell, recs := range byCell {
				if len(recs) != 2 || recs[0].Pair != "p" || recs[1].Pair != "q" {
					t.Fatalf("cell %d: records %v, want p then q", cell, recs)
				}
				for _, r := range recs {
					if r.Flow == nil || strings.Join(r.Flow.Pairs, ",") != "p,q" || r.Flow.SkewBoundMs != 100 {
						t.Fatalf("cell %d pair %s: flow %+v", cell, r.Pair, r.Flow)
					}
					if (r.Error != "") != (r.Pair == tc.failed) {
						t.Errorf("cell %d pair %s: error %q", cell, r.Pair, r.Error)
					}
				}
				skew := time.Duration(recs[0].Flow.SkewMs * float64(time.Millisecond))
				if skew < tc.minSkew || skew > tc.maxSkew {
					t.Errorf("cell %d: skew %v, want within [%v, %v]", cell, skew, tc.minSkew, tc.maxSkew)
				}
				if tc.overlap {
					a, b := recs[0].Raw, recs[1].Raw
					if !a.Start.Before(b.End) || !b.Start.Before(a.End) {
						t.Errorf("cell %d: the flows did not overlap: [%v, %v] and [%v, %v]", cell, a.Start, a.End, b.Start, b.End)
					}
				}
			}
			warned := false
			for _, ev := range *events {
				warned = warned || ev.Type == EvWarning && strings.Contains(ev.Message, "concurrent flows' clients started")
			}
			if warned != tc.warned {
				t.Errorf("skew warning %v, want %v", warned, tc.warned)
			}
		})
	}
}

// TestStartGate: the gate opens when every party has arrived or left,
// and not before.
func TestStartGate(t *testing.T) {
	tests := []struct {
		name          string
		arrive, leave int
		parties       int
		open          bool
	}{
		{"all arrive", 3, 0, 3, true},
		{"one left, the rest arrived", 2, 1, 3, true},
		{"one still out", 2, 0, 3, false},
		{"all left", 0, 2, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newStartGate(tc.parties)
			var ps []*party
			for range tc.parties {
				ps = append(ps, g.party())
			}
			for _, p := range ps[tc.arrive : tc.arrive+tc.leave] {
				p.leave()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			errs := make(chan error, tc.arrive)
			for _, p := range ps[:tc.arrive] {
				go func() { errs <- p.arrive(ctx) }()
			}
			for range tc.arrive {
				if err := <-errs; (err == nil) != tc.open {
					t.Errorf("arrive: %v, want open %v", err, tc.open)
				}
			}
			select {
			case <-g.open:
				if !tc.open {
					t.Errorf("gate open")
				}
			default:
				if tc.open {
					t.Errorf("gate shut")
				}
			}
		})
	}
}
