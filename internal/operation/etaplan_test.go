package operation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/plan"
)

// etaView remembers the plan apply showed, for NewETA.
type etaView struct {
	recView
	plan *plan.Plan
}

func (v *etaView) Plan(p *plan.Plan) error { v.plan = p; return v.recView.Plan(p) }

// TestNewETA: the estimate of the plan apply shows is each run's
// benchmark (1 s in fakeLab) plus the overhead of a run, scaled by how the
// finished runs compared with their plan.
func TestNewETA(t *testing.T) {
	o := newFakeOp(t, fakeLab("eta", ""))
	v := &etaView{}
	v.decline = true // the plan is all this test needs
	if err := o.Apply(context.Background(), fakeArgs(), v); err == nil {
		t.Fatal("a declined apply went ahead")
	}
	e := NewETA(v.plan)
	for _, tc := range []struct {
		finished time.Duration // run 1 took this (0: not finished)
		index    int
		inRun    time.Duration
		want     string
	}{
		{0, 1, 0, "  (about 12s left)"},
		{0, 4, time.Second, "  (about 5s left)"},
		{4 * time.Second, 2, 0, "  (about 20s left)"}, // twice as slow as planned
	} {
		if tc.finished > 0 {
			e.Finished(1, tc.finished)
		}
		if got := e.Text(tc.index, tc.inRun); got != tc.want {
			t.Errorf("run %d, %s in: %q, want %q", tc.index, tc.inRun, got, tc.want)
		}
	}
	if len(e.Planned) != 6 {
		t.Errorf("%d runs planned, want 6", len(e.Planned))
	}
	if got := NewETA(&plan.Plan{}).Text(1, 0); got != "" {
		t.Errorf("a plan without runs estimates %q", got)
	}
}

// TestValidWorkspaceID: only letters and digits, as lab makes workspace
// ids; never a pattern, a path or an empty id.
func TestValidWorkspaceID(t *testing.T) {
	for in, want := range map[string]bool{
		"a1B2c3": true, "": false, "*": false, "ab-cd": false, "../x": false, "a b": false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
	} {
		if got := ValidWorkspaceID(in); got != want {
			t.Errorf("ValidWorkspaceID(%q) = %v, want %v", in, got, want)
		}
	}
}
