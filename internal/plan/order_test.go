package plan

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/state"
)

// twoPairs is the shape of the vmxnet3 example: one experiment, two
// pairs (two guest OSes) compared cell by cell.
const twoPairs = `
lab "two" {}
template "fbsd" { os = "freebsd" }
template "deb" {}
pair "fbsd" { template = template.fbsd }
pair "deb" { template = template.deb }
experiment "e" {
  pairs  = [pair.fbsd, pair.deb]
  matrix = { mtu = [1500, 9000] }
  repeat = 4
  warmup = 1
  ORDER
  guest { mtu = matrix.mtu }
  iperf3 { duration = "5s" }
}
`

func twoPairsLab(order string) string { return strings.Replace(twoPairs, "ORDER", order, 1) }

// TestRandomBlocks: by default every block holds each (pair, cell) once,
// warm-ups first; the same seed gives the same order, the plan records it,
// and the runs are numbered in that order with each group's runs in it.
func TestRandomBlocks(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		blocks int // warm-up blocks + repeat blocks
		size   int // (pair, cell)s in a block
	}{
		{"two pairs", twoPairsLab(""), 1 + 4, 2 * 2},
		{"two shapes of one pair", twoShapes, 1 + 2, 4},
		{"explicit random", twoPairsLab(`order = "random"`), 1 + 4, 2 * 2},
	}
	for _, tc := range tests {
		for _, seed := range []int64{1, 23, MaxOrderSeed - 1} {
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				lab := load(t, tc.src)
				p, diags := New(lab, &state.State{}, Options{OrderSeed: seed})
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				if p.OrderSeed != seed {
					t.Errorf("plan records seed %d, want %d", p.OrderSeed, seed)
				}
				runs := p.Runs()
				if len(runs) != tc.blocks*tc.size {
					t.Fatalf("%d runs, want %d blocks of %d", len(runs), tc.blocks, tc.size)
				}
				for i, r := range runs {
					if r.Index != i+1 {
						t.Fatalf("run %d has index %d", i+1, r.Index)
					}
				}
				for b := range tc.blocks {
					block := runs[b*tc.size : (b+1)*tc.size]
					seen := map[string]bool{}
					for _, r := range block {
						k := r.Pair + "/" + r.CellKey
						if seen[k] {
							t.Errorf("block %d holds %s twice", b+1, k)
						}
						seen[k] = true
						warm, rep := b == 0, b
						if b == 0 {
							rep = 1
						}
						if r.Warmup != warm || r.Repeat != rep {
							t.Errorf("block %d holds %s repeat %d warmup %v", b+1, k, r.Repeat, r.Warmup)
						}
					}
				}
				for _, g := range p.Groups {
					if !slices.IsSortedFunc(g.Runs, func(a, b Run) int { return a.Index - b.Index }) {
						t.Errorf("group %s's runs are not in run order", g.Address)
					}
				}
				again, _ := New(lab, &state.State{}, Options{OrderSeed: seed})
				if order(again) != order(p) {
					t.Errorf("same seed, another order:\n%s\n%s", order(again), order(p))
				}
			})
		}
	}
}

// order is the plan's runs as "pair/cell#repeat" in run order.
func order(p *Plan) string {
	var s []string
	for _, r := range p.Runs() {
		s = append(s, fmt.Sprintf("%s/%s#%d%v", r.Pair, r.CellKey, r.Repeat, r.Warmup))
	}
	return strings.Join(s, " ")
}

// TestOrderSeeds: seeds give different orders; a plan with no seed given
// draws one in [1, MaxOrderSeed); one of interleaved or sequential
// experiments only has no seed and says none.
func TestOrderSeeds(t *testing.T) {
	lab := load(t, twoPairsLab(""))
	seen := map[string]bool{}
	for seed := int64(1); seed <= 20; seed++ {
		p, _ := New(lab, &state.State{}, Options{OrderSeed: seed})
		seen[order(p)] = true
	}
	if len(seen) < 19 {
		t.Errorf("20 seeds gave %d orders", len(seen))
	}
	p, _ := New(lab, &state.State{}, Options{})
	if p.OrderSeed < 1 || p.OrderSeed >= MaxOrderSeed {
		t.Errorf("drawn seed %d", p.OrderSeed)
	}
	var b strings.Builder
	if err := p.Render(&b, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("seed %d; -order-seed %d replays it", p.OrderSeed, p.OrderSeed); !strings.Contains(b.String(), want) {
		t.Errorf("plan output lacks %q:\n%s", want, b.String())
	}
	for _, o := range []string{`order = "interleaved"`, `order = "sequential"`} {
		p, _ := New(load(t, twoPairsLab(o)), &state.State{}, Options{OrderSeed: 5})
		b.Reset()
		_ = p.Render(&b, RenderOptions{})
		if p.OrderSeed != 0 || strings.Contains(b.String(), "seed") {
			t.Errorf("%s: seed %d in the plan:\n%s", o, p.OrderSeed, b.String())
		}
		// Pair after pair, as before random blocks.
		runs := p.Runs()
		if runs[0].Pair != "fbsd" || runs[len(runs)/2-1].Pair != "fbsd" || runs[len(runs)/2].Pair != "deb" {
			t.Errorf("%s: %s", o, order(p))
		}
	}
}

// TestOrderSavedAndSelected: a saved plan keeps its seed and order; a
// plan saved before random blocks (numbered group by group, no seed)
// reads as the order it had; a selection keeps the order of what it
// keeps, numbered anew.
func TestOrderSavedAndSelected(t *testing.T) {
	lab := load(t, twoShapes)
	p, _ := New(lab, &state.State{}, Options{OrderSeed: 7})
	path := filepath.Join(t.TempDir(), "p.plan")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.OrderSeed != 7 || order(got) != order(p) {
		t.Errorf("saved plan: seed %d, order\n%s\nwant\n%s", got.OrderSeed, order(got), order(p))
	}

	old, _ := New(load(t, strings.Replace(twoShapes, "repeat = 2", "repeat = 2\n  order = \"interleaved\"", 1)), &state.State{}, Options{})
	if err := old.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var groupByGroup []string
	for _, g := range got.Groups {
		for _, r := range g.Runs {
			groupByGroup = append(groupByGroup, fmt.Sprintf("%s/%s#%d%v", r.Pair, r.CellKey, r.Repeat, r.Warmup))
		}
	}
	if order(got) != strings.Join(groupByGroup, " ") {
		t.Errorf("plan without a seed runs\n%s\nwant group by group\n%s", order(got), strings.Join(groupByGroup, " "))
	}

	keep := func(r Run) bool { return strings.HasSuffix(r.CellKey, "mtu=9000") && !r.Warmup }
	sel, _ := New(lab, &state.State{}, Options{OrderSeed: 7, Select: keep, Selection: "-only mtu=9000"})
	var want []string
	for _, r := range p.Runs() {
		if keep(r) {
			want = append(want, fmt.Sprintf("%s/%s#%d%v", r.Pair, r.CellKey, r.Repeat, r.Warmup))
		}
	}
	if order(sel) != strings.Join(want, " ") {
		t.Errorf("selection runs\n%s\nwant the full plan's order\n%s", order(sel), strings.Join(want, " "))
	}
	for i, r := range sel.Runs() {
		if r.Index != i+1 {
			t.Errorf("selected run %d has index %d", i+1, r.Index)
		}
	}
}

// TestDriftBiasesOnlyTheOldOrder simulates a host whose throughput falls
// linearly by 10 % over an apply (noise 3 % per run) for two pairs that
// are truly equal, and estimates the pair comparison (mean of fbsd / mean
// of deb − 1) from each plan's run order: the old pair-after-pair order
// reports a difference that is all drift; random blocks do not.
func TestDriftBiasesOnlyTheOldOrder(t *testing.T) {
	const trials, drift, noise = 2000, 0.10, 0.03
	simulate := func(p *Plan, rng *mrand.Rand) float64 {
		runs := p.Runs()
		sum, n := map[string]float64{}, map[string]float64{}
		for i, r := range runs {
			if r.Warmup {
				continue
			}
			x := (1 - drift*float64(i)/float64(len(runs)-1)) * (1 + noise*rng.NormFloat64())
			sum[r.Pair] += x
			n[r.Pair]++
		}
		return (sum["fbsd"]/n["fbsd"])/(sum["deb"]/n["deb"]) - 1
	}
	oldLab, newLab := load(t, twoPairsLab(`order = "interleaved"`)), load(t, twoPairsLab(""))
	oldPlan, _ := New(oldLab, &state.State{}, Options{})
	rng := mrand.New(mrand.NewPCG(23, 3))
	var oldB, newB []float64
	for i := range trials {
		oldB = append(oldB, simulate(oldPlan, rng))
		p, _ := New(newLab, &state.State{}, Options{OrderSeed: int64(i + 1)})
		newB = append(newB, simulate(p, rng))
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	sd := func(xs []float64) float64 {
		m, s := mean(xs), 0.0
		for _, x := range xs {
			s += (x - m) * (x - m)
		}
		return math.Sqrt(s / float64(len(xs)-1))
	}
	mo, mn, so, sn := mean(oldB), mean(newB), sd(oldB), sd(newB)
	t.Logf("drift %.0f %% over the apply, noise %.0f %%, %d trials: bias of fbsd/deb − 1: pair after pair %+.2f %% (sd %.2f %%), random blocks %+.2f %% (sd %.2f %%, standard error of the mean %.3f %%)",
		100*drift, 100*noise, trials, 100*mo, 100*so, 100*mn, 100*sn, 100*sn/math.Sqrt(trials))
	if mo < 0.04 {
		t.Errorf("pair after pair: bias %+.2f %%, want the drift's ≈ +5 %%", 100*mo)
	}
	if math.Abs(mn) > 4*sn/math.Sqrt(trials) || math.Abs(mn) > 0.002 {
		t.Errorf("random blocks: bias %+.3f %%, want none (within 4 standard errors %.3f %%)", 100*mn, 400*sn/math.Sqrt(trials))
	}
	if sn > so*2 {
		t.Errorf("random blocks: spread %.2f %% against %.2f %% pair after pair", 100*sn, 100*so)
	}
}

// TestFoldover: order "random" lays out its repeat blocks in folds — block
// 2k is block 2k−1 reversed (ABBA for two cells) — so that within every
// fold each cell's mean position is the same and a linear drift cancels;
// blocks 2k−1 still differ with the seed. The plan and the run record the
// design per experiment: foldover, rounds (interleaved), sequential.
func TestFoldover(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		size      int
	}{
		{"two pairs", twoPairsLab(""), 4},
		{"two shapes of one pair", twoShapes, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firsts := map[string]bool{}
			for seed := int64(1); seed <= 10; seed++ {
				p, diags := New(load(t, tc.src), &state.State{}, Options{OrderSeed: seed})
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				var blocks [][]string
				for _, r := range p.Runs() {
					if r.Warmup {
						continue
					}
					for len(blocks) < r.Repeat {
						blocks = append(blocks, nil)
					}
					blocks[r.Repeat-1] = append(blocks[r.Repeat-1], r.Pair+"/"+r.CellKey)
				}
				for b := 0; b+1 < len(blocks); b += 2 {
					rev := slices.Clone(blocks[b+1])
					slices.Reverse(rev)
					if !slices.Equal(blocks[b], rev) {
						t.Errorf("seed %d: block %d %v is not block %d %v reversed", seed, b+2, blocks[b+1], b+1, blocks[b])
					}
					pos := map[string]int{}
					for i, c := range blocks[b] {
						pos[c] += i
					}
					for i, c := range blocks[b+1] {
						pos[c] += i
					}
					for c, s := range pos {
						if s != tc.size-1 {
							t.Errorf("seed %d: %s sits at positions summing to %d in fold %d, want %d", seed, c, s, b/2+1, tc.size-1)
						}
					}
				}
				firsts[strings.Join(blocks[0], " ")] = true
				for _, d := range p.Design {
					if d != "foldover" {
						t.Errorf("design %v, want foldover", p.Design)
					}
				}
				if len(p.Design) == 0 {
					t.Error("the plan records no design")
				}
			}
			if len(firsts) < 3 {
				t.Errorf("10 seeds gave %d first blocks", len(firsts))
			}
		})
	}
	for o, want := range map[string]string{`order = "interleaved"`: "rounds", `order = "sequential"`: "sequential"} {
		p, _ := New(load(t, twoPairsLab(o)), &state.State{}, Options{})
		if p.Design["e"] != want {
			t.Errorf("%s: design %v, want %s", o, p.Design, want)
		}
	}
}
