package plan

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// TestSelect: a selection keeps the runs it names, numbers them anew,
// drops the groups left without runs and leaves their machines alone.
func TestSelect(t *testing.T) {
	lab := load(t, twoShapes)
	// vcpu=2's group exists from an earlier -keep; the selection is vcpu=1.
	all, diags := New(lab, &state.State{}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var other *Group
	for _, g := range all.Groups {
		if strings.Contains(g.Runs[0].CellKey, "vcpu=2") {
			other = g
		}
	}
	st := &state.State{Lineage: "l", Resources: []state.Resource{
		{Instance: machine.Instance{Address: other.Server.Address, Kind: "machine"}, Status: state.Created, Shape: other.Shape},
	}}
	tests := []struct {
		name     string
		keep     func(Run) bool
		wantRuns int
		wantDel  int
	}{
		{"all", func(Run) bool { return true }, 12, 0},
		{"one vcpu", func(r Run) bool { return strings.HasPrefix(r.CellKey, "vcpu=1,") }, 6, 0},
		{"one cell, no warmups", func(r Run) bool { return r.CellKey == "vcpu=1,mtu=9000" && !r.Warmup }, 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := New(lab, st, Options{Now: time.Unix(0, 0), Select: tc.keep, Selection: "-only test"})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			runs := p.Runs()
			if len(runs) != tc.wantRuns || p.AllRuns != 12 {
				t.Errorf("%d of %d runs, want %d of 12", len(runs), p.AllRuns, tc.wantRuns)
			}
			for i, r := range runs {
				if r.Index != i+1 {
					t.Errorf("run %d has index %d", i+1, r.Index)
				}
			}
			if _, _, del, _ := p.Counts(); del != tc.wantDel {
				t.Errorf("%d deletes, want %d: a machine of an unselected group was planned for deletion", del, tc.wantDel)
			}
			var out bytes.Buffer
			if err := p.Render(&out, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "Selection: -only test: ") {
				t.Errorf("render lacks the selection:\n%s", out.String())
			}
		})
	}
}
