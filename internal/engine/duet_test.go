package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
)

// TestDuetFlows: a duet's two runs of one repeat — different cells on the
// two pairs (plan.duetOrder) — run as one batch: their clients start
// together, each pair configured with its own cell's settings, and each
// record carries the flow with both pairs and the skew that
// results.DuetSkewBound judges.
func TestDuetFlows(t *testing.T) {
	p := flowsPlan(2)
	for gi, g := range p.Groups {
		for j := range g.Runs {
			r := &g.Runs[j]
			mtu := []int{1500, 9000}[(gi+j)%2] // p: 1500, 9000; q: 9000, 1500
			r.Repeat, r.CellIndex, r.CellKey, r.Duet = j+1, mtu/9000, fmt.Sprintf("mtu=%d", mtu), true
			r.Spec = specWithMTU(mtu)
		}
	}
	e, res, _ := newEngine(newFake(), fakeOS{}, fakeRunner{})
	e.Runner = func(string) (bench.Runner, error) { return gatedRunner{flowRunner{}}, nil }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := e.Apply(ctx, context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(res.recs) != 4 {
		t.Fatalf("%d records, want 4", len(res.recs))
	}
	for _, r := range res.recs {
		if r.CellKey != fmt.Sprintf("mtu=%d", r.Intent.Server.MTU) {
			t.Errorf("repeat %d on %s of %s configured mtu %d", r.Repeat, r.Pair, r.CellKey, r.Intent.Server.MTU)
		}
		if r.Flow == nil || len(r.Flow.Pairs) != 2 {
			t.Fatalf("repeat %d of %s on %s ran alone, not beside the other cell", r.Repeat, r.CellKey, r.Pair)
		}
		if r.Flow.SkewMs > 30 {
			t.Errorf("repeat %d: skew %.1f ms", r.Repeat, r.Flow.SkewMs)
		}
	}
	for i := 0; i < 4; i += 2 {
		a, b := res.recs[i], res.recs[i+1]
		if a.Repeat != b.Repeat || a.CellKey == b.CellKey || a.Pair == b.Pair {
			t.Errorf("batch %d: %s %s #%d and %s %s #%d, want both cells of one repeat", i/2, a.Pair, a.CellKey, a.Repeat, b.Pair, b.CellKey, b.Repeat)
		}
		if !a.Raw.Start.Before(b.Raw.End) || !b.Raw.Start.Before(a.Raw.End) {
			t.Errorf("repeat %d: the two cells' flows did not overlap", a.Repeat)
		}
	}
}
