package plan

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
)

// flowsLab is seed 001's two concurrent flows (c1 -> s1, c2 -> s2), with a
// third pair for the three-flow case.
const flowsLab = `
lab "flows" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
pair "c" { template = template.t }
experiment "e" {
  pairs      = PAIRS
  concurrent = true
  matrix     = { mtu = [1500, 9000] }
  repeat     = 3
  warmup     = 1
  ORDER
  guest { mtu = matrix.mtu }
  iperf3 { duration = "5s" }
}
`

// TestConcurrentOrder: in every order, a concurrent experiment's runs come
// in batches of one cell and repeat across all its pairs, adjacent in the
// run order, each run listing the batch's pairs; every cell runs warmup +
// repeat batches, and the estimate counts a batch once.
func TestConcurrentOrder(t *testing.T) {
	tests := []struct {
		order string
		pairs []string
	}{
		{"", []string{"a", "b"}},
		{`order = "random"`, []string{"a", "b", "c"}},
		{`order = "interleaved"`, []string{"a", "b"}},
		{`order = "sequential"`, []string{"b", "a"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %v", tc.order, tc.pairs), func(t *testing.T) {
			refs := make([]string, len(tc.pairs))
			for i, p := range tc.pairs {
				refs[i] = "pair." + p
			}
			src := strings.NewReplacer("PAIRS", "["+strings.Join(refs, ", ")+"]", "ORDER", tc.order).Replace(flowsLab)
			p, diags := New(load(t, src), &state.State{}, Options{OrderSeed: 7})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			runs := p.Runs()
			if want := 2 * (1 + 3) * len(tc.pairs); len(runs) != want {
				t.Fatalf("%d runs, want %d", len(runs), want)
			}
			batches := Batches(runs)
			if len(batches) != 2*(1+3) {
				t.Fatalf("%d batches, want %d (2 cells x (1 warm-up + 3 repeats))", len(batches), 2*(1+3))
			}
			perCell := map[string]int{}
			for _, b := range batches {
				var pairs []string
				for _, r := range b {
					pairs = append(pairs, r.Pair)
					if !slices.Equal(r.Flows, tc.pairs) {
						t.Errorf("run %d lists flows %v, want %v", r.Index, r.Flows, tc.pairs)
					}
					if r.CellKey != b[0].CellKey || r.Repeat != b[0].Repeat || r.Warmup != b[0].Warmup {
						t.Errorf("batch mixes %s #%d and %s #%d", b[0].CellKey, b[0].Repeat, r.CellKey, r.Repeat)
					}
				}
				if !slices.Equal(pairs, tc.pairs) {
					t.Errorf("batch of %s #%d runs pairs %v, want %v", b[0].CellKey, b[0].Repeat, pairs, tc.pairs)
				}
				perCell[b[0].CellKey]++
			}
			for k, n := range perCell {
				if n != 4 {
					t.Errorf("cell %s runs in %d batches, want 4", k, n)
				}
			}
			add, replace, del, _ := p.Counts()
			create := time.Duration(add+2*replace+del) * time.Second / 2
			if want := create + time.Duration(len(batches))*(5*time.Second+time.Second); p.Estimate != want {
				t.Errorf("estimate %v, want %v (each batch once)", p.Estimate, want)
			}
		})
	}
}

// TestConcurrentRandomBlocks: the random order shuffles the cells, never
// the flows of one cell apart; warm-ups come first, and a seed replays it.
func TestConcurrentRandomBlocks(t *testing.T) {
	src := strings.NewReplacer("PAIRS", "[pair.a, pair.b]", "ORDER", "").Replace(flowsLab)
	order := func(seed int64) []string {
		p, diags := New(load(t, src), &state.State{}, Options{OrderSeed: seed})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		var out []string
		for i, b := range Batches(p.Runs()) {
			if warm := i < 2; b[0].Warmup != warm {
				t.Errorf("seed %d: batch %d warm-up %v, want %v", seed, i+1, b[0].Warmup, warm)
			}
			out = append(out, fmt.Sprintf("%s#%d", b[0].CellKey, b[0].Repeat))
		}
		return out
	}
	seen := map[string]bool{}
	for seed := int64(1); seed <= 20; seed++ {
		o := order(seed)
		if !slices.Equal(o, order(seed)) {
			t.Fatalf("seed %d does not replay its order", seed)
		}
		seen[strings.Join(o, " ")] = true
	}
	if len(seen) < 2 {
		t.Errorf("20 seeds drew %d order(s): the cells are not shuffled", len(seen))
	}
}

// TestBatches: adjacent runs of one concurrent unit run together; a lone
// run, or a unit's flow that is not adjacent, runs by itself.
func TestBatches(t *testing.T) {
	flow := func(pair string, cell, rep int) Run {
		return Run{Experiment: "e", Pair: pair, CellIndex: cell, Repeat: rep, Flows: []string{"a", "b"}}
	}
	lone := func(pair string, cell, rep int) Run {
		return Run{Experiment: "e", Pair: pair, CellIndex: cell, Repeat: rep}
	}
	tests := []struct {
		name string
		runs []Run
		want []int // batch sizes
	}{
		{"lone runs", []Run{lone("a", 0, 1), lone("b", 0, 1)}, []int{1, 1}},
		{"two flows", []Run{flow("a", 0, 1), flow("b", 0, 1)}, []int{2}},
		{"two units", []Run{flow("a", 0, 1), flow("b", 0, 1), flow("a", 1, 1), flow("b", 1, 1)}, []int{2, 2}},
		{"next repeat", []Run{flow("a", 0, 1), flow("b", 0, 1), flow("a", 0, 2)}, []int{2, 1}},
		{"one flow left (resume)", []Run{flow("b", 0, 1), lone("a", 0, 1)}, []int{1, 1}},
		{"not adjacent", []Run{flow("a", 0, 1), lone("x", 0, 1), flow("b", 0, 1)}, []int{1, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, b := range Batches(tc.runs) {
				got = append(got, len(b))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("batches %v, want %v", got, tc.want)
			}
		})
	}
}

// TestConcurrentRender: the plan says which runs start together.
func TestConcurrentRender(t *testing.T) {
	src := strings.NewReplacer("PAIRS", "[pair.a, pair.b]", "ORDER", `order = "interleaved"`).Replace(flowsLab)
	p, diags := New(load(t, src), &state.State{}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var b bytes.Buffer
	if err := p.Render(&b, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"e/a  mtu=1500  warmup 1  5s  (concurrent with b)", "e/b  mtu=1500  warmup 1  5s  (concurrent with a)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
}

// TestBackgroundInPlan: a run under a background load says so, and the
// estimate counts the load when it outlasts the measurement.
func TestBackgroundInPlan(t *testing.T) {
	tests := []struct {
		bgDuration string
		perRun     time.Duration
		note       string
	}{
		{"", 5*time.Second + 3*time.Second, "(under load: iperf3 x4 streams, 8s)"},
		{`duration = "20s"`, 20 * time.Second, "(under load: iperf3 x4 streams, 20s)"},
	}
	for _, tc := range tests {
		t.Run(tc.note, func(t *testing.T) {
			src := `
lab "bg" {}
template "t" {}
pair "a" { template = template.t }
experiment "e" {
  pairs = [pair.a]
  background {
    iperf3 {
      parallel = 4
      ` + tc.bgDuration + `
    }
  }
  iperf2 {
    bounceback = true
    duration   = "5s"
  }
}
`
			p, diags := New(load(t, src), &state.State{}, Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			add, replace, del, _ := p.Counts()
			create := time.Duration(add+2*replace+del) * time.Second / 2
			if want := create + tc.perRun + time.Second; p.Estimate != want {
				t.Errorf("estimate %v, want %v", p.Estimate, want)
			}
			var b bytes.Buffer
			if err := p.Render(&b, RenderOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.note) {
				t.Errorf("plan lacks %q:\n%s", tc.note, b.String())
			}
		})
	}
}
