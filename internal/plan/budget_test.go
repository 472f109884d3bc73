package plan

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
)

// budget = "…": the plan runs as many whole blocks as the budget fits —
// each block every (pair, cell) once, at the tool's duration and omit plus
// the per-run overhead — bounded by repeat's max, rounded down to the
// stopping unit (a foldover's pair of blocks); every run carries the budget and the cell's sequential
// design, and the plan says how many blocks and how it estimated them.
func TestBudgetBlocks(t *testing.T) {
	lab := func(budget, repeat string) string {
		return `
lab "b" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  budget = "` + budget + `"
  ` + repeat + `
  warmup = 1
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "4s"
    omit     = "1s"
  }
  expect "all" { throughput = { gbps = 10, tolerance = "15%" } }
}
`
	}
	for _, tc := range []struct {
		name, budget, repeat string
		overhead             time.Duration
		blocks               int
		wantErr              string
	}{
		// a block is 2 cells × (4 s + 1 s omit + 1 s overhead) = 12 s
		{name: "ten minutes", budget: "10m", overhead: time.Second, blocks: 50},
		{name: "measured overhead", budget: "10m", overhead: 3 * time.Second, blocks: 36}, // 16 s blocks: 37 fit, rounded down to whole folds
		{name: "bounded by max", budget: "10m", repeat: `repeat = { min = 3, max = 20, until = "verdict" }`, overhead: time.Second, blocks: 20},
		{name: "too short", budget: "30s", overhead: time.Second, wantErr: "fits 2 blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := New(load(t, lab(tc.budget, tc.repeat)), &state.State{}, Options{RunOverhead: tc.overhead})
			if tc.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.wantErr) {
					t.Fatalf("diags %v, want %q", diags, tc.wantErr)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			runs := p.Groups[0].Runs
			if len(runs) != 2*(tc.blocks+1) {
				t.Fatalf("%d runs, want 2 cells × (1 warm-up + %d blocks)", len(runs), tc.blocks)
			}
			for _, r := range runs {
				if r.Warmup {
					continue
				}
				// order random is a foldover: looks after whole pairs of blocks
				want := &results.SeqDesign{Min: 4, Max: tc.blocks, Step: 2}
				if got := r.Sequential(); got == nil || *got != *want || r.Budget != 10*time.Minute {
					t.Fatalf("%s #%d: design %+v budget %v, want %+v and 10m", r.CellKey, r.Repeat, got, r.Budget, want)
				}
			}
			var b strings.Builder
			if err := p.Render(&b, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			line := "up to " + strconv.Itoa(tc.blocks) + " blocks in 10m (estimated from the tool durations and measured per-run overhead"
			if !strings.Contains(b.String(), line) {
				t.Errorf("plan does not say %q:\n%s", line, b.String())
			}
		})
	}
}
