package plan

import (
	"testing"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/internal/verdicts"
)

// until = "verdict": each run carries the throughput bands of the expect
// blocks that select its cell (as `lab check` selects them) and the cell's
// most runs; other expectations are not bands.
func TestUntilVerdictBands(t *testing.T) {
	p, diags := New(load(t, `
lab "v" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  repeat = { min = 3, max = 12, until = "verdict" }
  guest { mtu = matrix.mtu }
  iperf3 { duration = "5s" }
  expect "jumbo" {
    where      = { mtu = 9000 }
    throughput = { gbps = 20, tolerance = "10%" }
  }
  expect "all" {
    where      = { pair = "p" }
    throughput = { gbps = 10, tolerance = "50%" }
  }
  expect "ratio" {
    ratio = { of = "mtu=9000", over = "mtu=1500", at_least = 1.2 }
  }
}
`), &state.State{}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string][]verdicts.Target{
		"mtu=1500": {{Value: 10, Tolerance: 0.5}},
		"mtu=9000": {{Value: 20, Tolerance: 0.1}, {Value: 10, Tolerance: 0.5}},
	}
	runs := p.Groups[0].Runs
	if len(runs) != 24 {
		t.Fatalf("%d runs, want 2 cells × max 12", len(runs))
	}
	for _, r := range runs {
		w := want[r.CellKey]
		if !r.UntilVerdict || r.MinRepeat != 3 || r.MaxRepeat != 12 || len(r.Bands) != len(w) {
			t.Fatalf("%s: %+v", r.CellKey, r)
		}
		for i := range w {
			if r.Bands[i] != w[i] {
				t.Errorf("%s: band %d %+v, want %+v", r.CellKey, i, r.Bands[i], w[i])
			}
		}
	}
}
