package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// duetSpec is a duet (issue 32 part 1; Bulej et al., ICPE 2020): two veth
// pairs like the quickstart's, pair a's link at MTU mtuA and pair b's at
// mtuB, their flows started together (concurrent = true) repeat times.
// Lab expresses it as it is: a pair's link { mtu } is per pair, and a
// concurrent experiment starts every pair's client at the same moment, so
// one repeat's ln(b / a) is one paired unit of the shape mtuB / mtuA.
func duetSpec(repeat, mtuA, mtuB int) string {
	return fmt.Sprintf(`lab "duet" {
  description = "two veth pairs at MTU %[2]d and %[3]d, their flows at once"
}

template "host" {
  os = "linux"
}

pair "a" {
  template = template.host
  vcpu     = 1
  link { mtu = %[2]d }
}

pair "b" {
  template = template.host
  vcpu     = 1
  link { mtu = %[3]d }
}

experiment "duet" {
  pairs      = [pair.a, pair.b]
  concurrent = true
  repeat     = %[1]d

  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}
`, repeat, mtuA, mtuB)
}

// duetUnits is ln(b / a) of every repeat in which both pairs' flows
// succeeded, and the largest client start skew among them (ms).
func duetUnits(recs []results.Record) (units []float64, skewMs float64) {
	by := map[int]map[string]float64{}
	for _, r := range recs {
		if r.Warmup || r.Metrics.ThroughputBps <= 0 {
			continue
		}
		if by[r.Repeat] == nil {
			by[r.Repeat] = map[string]float64{}
		}
		by[r.Repeat][r.Pair] = r.Metrics.ThroughputBps
		if r.Flow != nil {
			skewMs = math.Max(skewMs, r.Flow.SkewMs)
		}
	}
	for _, rep := range slices.Sorted(maps.Keys(by)) {
		if a, b := by[rep]["a"], by[rep]["b"]; a > 0 && b > 0 {
			units = append(units, math.Log(b/a))
		}
	}
	return units, skewMs
}

// foldUnits are the units of a foldover's shape cell / ref
// (verdicts.PairedRatio): the per-block log-ratios d_b, and the mean of
// blocks 2k−1 and 2k (a fold) where both are there, else the block alone.
func foldUnits(recs []results.Record, cell, ref string) (blocks, folds []float64) {
	by := map[int]map[string]float64{}
	last := 0
	for _, r := range recs {
		if r.Warmup || r.Metrics.ThroughputBps <= 0 {
			continue
		}
		if by[r.Repeat] == nil {
			by[r.Repeat] = map[string]float64{}
		}
		by[r.Repeat][r.CellKey] = r.Metrics.ThroughputBps
		last = max(last, r.Repeat)
	}
	d := map[int]float64{}
	for rep, m := range by {
		if c, o := m[cell], m[ref]; c > 0 && o > 0 {
			d[rep] = math.Log(c / o)
		}
	}
	for rep := 1; rep <= last; rep++ {
		x, ok := d[rep]
		if !ok {
			continue
		}
		blocks = append(blocks, x)
		if y, ok := d[rep+1]; ok && rep%2 == 1 {
			blocks = append(blocks, y)
			folds = append(folds, (x+y)/2)
			rep++
			continue
		}
		folds = append(folds, x)
	}
	return blocks, folds
}

// duetApply is one real apply of BenchmarkDuet.
type duetApply struct {
	kind         string // "foldover", "duet" or "A/A duet"
	wall         time.Duration
	load0, load1 float64
	// units are the independent units of the shape's estimate (folds, or
	// a duet's repeats); blocks the foldover's blocks (its per-block SD).
	units, blocks []float64
	skewMs        float64
}

// mde10 is the MDE (α 5 %, power 80 %, no margin) of a shape change
// between two applies of tenMin of benchmark time each, when one unit
// has SD sd and an apply of wall holds n units: each side's SE is
// sd/√(n·tenMin/wall), df those of two such applies.
func mde10(sd float64, n int, wall, tenMin time.Duration) float64 {
	if n < 2 || wall <= 0 {
		return math.NaN()
	}
	n10 := float64(n) * tenMin.Seconds() / wall.Seconds()
	se := math.Sqrt(2) * sd / math.Sqrt(n10)
	return verdicts.MDE(se, int(2*(n10-1)), 0)
}

// BenchmarkDuet (issue 32 part 1, `make duet`, root) measures, on this
// machine and at equal benchmark time, whether a duet decides a shape
// better than the foldover: LAB_DUET_ROUNDS rounds (default 3), each of
// three applies in rotating order — the pinned quickstart's foldover
// (sensitivitySpec) with LAB_DUET_BLOCKS blocks (default 8, 2 runs of 2 s
// each), a duet MTU 1500 / 9000 with twice as many repeats (as many runs
// of 2 s, one flow per pair at once), and an A/A duet (both pairs at MTU
// 1500) with LAB_DUET_BLOCKS repeats, whose mean is the duet's bias. It
// prints every apply with the 1-minute load before and after, the table
// of figures and the verdict lines. LAB_DUET_KEEP=DIR keeps the labs and
// the list of applies in DIR; run again with the same DIR, it reuses the
// applies there and makes only the missing ones (LAB_DUET_ROUNDS=1 with a
// full DIR: judge again without applying).
func BenchmarkDuet(b *testing.B) {
	needNamespacesB(b)
	rounds, blocks := envInt("LAB_DUET_ROUNDS", 3), envInt("LAB_DUET_BLOCKS", 8)
	fold, err := sensitivitySpec(blocks)
	if err != nil {
		b.Fatal(err)
	}
	specs := []struct{ kind, src string }{
		{"foldover", fold},
		{"duet", duetSpec(2*blocks, 1500, 9000)},
		{"A/A duet", duetSpec(blocks, 1500, 1500)},
	}
	root := os.Getenv("LAB_DUET_KEEP")
	if root == "" {
		root = b.TempDir()
	}
	dirs := make([]string, len(specs))
	for i, s := range specs {
		dirs[i] = filepath.Join(root, fmt.Sprintf("%d", i))
		if err := os.MkdirAll(dirs[i], 0o755); err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dirs[i], "lab.hcl")); err == nil {
			continue // a kept directory keeps its spec
		}
		if err := os.WriteFile(filepath.Join(dirs[i], "lab.hcl"), []byte(s.src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	kept := keptDuetApplies(b, root)
	applies := make([]duetApply, 0, len(kept))
	for _, k := range kept {
		applies = append(applies, duetLoad(b, dirs[k.Spec], k))
	}
	for n := len(kept); n < rounds*len(specs); n++ {
		r, k := n/len(specs), n%len(specs)
		i := (r + k) % len(specs) // rotate: no kind always first
		kept = append(kept, duetRun(b, dirs[i], i, specs[i].kind))
		a := duetLoad(b, dirs[i], kept[n])
		applies = append(applies, a)
		fmt.Printf("duet: round %d %-8s %s, load %.1f → %.1f, %d units, mean ln %+.3f, sd %.3f\n",
			r+1, a.kind, a.wall.Round(time.Second), a.load0, a.load1, len(a.units),
			results.Summarize(a.units).Mean, results.Summarize(a.units).Stdev)
		if err := writeDuetApplies(root, kept); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds(), "s-benchmark")
	printDuet(os.Stdout, applies)
}

// duetKept is one apply as LAB_DUET_KEEP's duetAppliesFile lists it.
type duetKept struct {
	Spec         int           `json:"spec"` // index into BenchmarkDuet's specs
	Kind         string        `json:"kind"`
	Run          string        `json:"run"`
	Wall         time.Duration `json:"wall"`
	Load0, Load1 float64       // 1-minute load average before and after
}

// duetAppliesFile, in a kept directory, lists the applies made.
const duetAppliesFile = "duet-applies.json"

// keptDuetApplies are the applies a kept directory already holds.
func keptDuetApplies(b *testing.B, root string) []duetKept {
	data, err := os.ReadFile(filepath.Join(root, duetAppliesFile))
	if os.IsNotExist(err) {
		return nil
	}
	var kept []duetKept
	if err == nil {
		err = json.Unmarshal(data, &kept)
	}
	if err != nil {
		b.Fatalf("%s: %v", duetAppliesFile, err)
	}
	fmt.Printf("duet: reusing the %d applies of %s\n", len(kept), root)
	return kept
}

// writeDuetApplies lists the applies made in root.
func writeDuetApplies(root string, kept []duetKept) error {
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, duetAppliesFile), data, 0o644)
}

// duetRun applies dir's lab once.
func duetRun(b *testing.B, dir string, spec int, kind string) duetKept {
	k := duetKept{Spec: spec, Kind: kind, Load0: loadOne(loadAvg())}
	t0 := time.Now()
	if stdout, stderr, err := lab(b, dir, "apply", "-auto-approve"); err != nil {
		b.Fatalf("%s apply: %v\n%s\n%s", kind, err, stdout, stderr)
	}
	k.Wall, k.Load1 = time.Since(t0), loadOne(loadAvg())
	id, err := results.Store{Dir: filepath.Join(dir, "results")}.Latest()
	if err != nil {
		b.Fatal(err)
	}
	k.Run = id
	return k
}

// duetLoad reads the units of a kept apply from its records.
func duetLoad(b *testing.B, dir string, k duetKept) duetApply {
	a := duetApply{kind: k.Kind, wall: k.Wall, load0: k.Load0, load1: k.Load1}
	_, recs, err := results.Store{Dir: filepath.Join(dir, "results")}.Load(k.Run)
	if err != nil {
		b.Fatal(err)
	}
	if k.Kind == "foldover" {
		a.blocks, a.units = foldUnits(recs, sensitivityCell, "mtu=1500")
	} else {
		a.units, a.skewMs = duetUnits(recs)
	}
	return a
}

// duetFigures are one kind's figures over its applies.
type duetFigures struct {
	kind         string
	applies      int
	units        float64 // mean units per apply
	wall         time.Duration
	loadLo       float64
	loadHi       float64
	mean, meanSE float64 // pooled mean ln and its SE over the applies' means
	sdUnit       float64 // pooled within-apply SD of one unit
	sdBlock      float64 // the foldover's per-block SD
	seApply      float64 // sdUnit / √units: the SE of one apply's shape
	seBetween    float64 // SD of the applies' means: the SE seen
	mde, mdeSeen float64 // MDE in 10 min from seApply, and from the larger of both
	skewMs       float64
	apMeans      []float64
}

// duetSummary pools the applies of kind.
func duetSummary(kind string, applies []duetApply) duetFigures {
	f := duetFigures{kind: kind, loadLo: math.Inf(1)}
	var ss, bss, n, nb float64
	var all []float64
	for _, a := range applies {
		if a.kind != kind || len(a.units) < 2 {
			continue
		}
		f.applies++
		s := results.Summarize(a.units)
		ss += s.Stdev * s.Stdev * float64(s.N-1)
		n += float64(s.N - 1)
		if len(a.blocks) > 1 {
			bs := results.Summarize(a.blocks)
			bss += bs.Stdev * bs.Stdev * float64(bs.N-1)
			nb += float64(bs.N - 1)
		}
		f.units += float64(s.N)
		f.wall += a.wall
		f.loadLo, f.loadHi = math.Min(f.loadLo, math.Min(a.load0, a.load1)), math.Max(f.loadHi, math.Max(a.load0, a.load1))
		f.apMeans = append(f.apMeans, s.Mean)
		f.skewMs = math.Max(f.skewMs, a.skewMs)
		all = append(all, a.units...)
	}
	if f.applies == 0 {
		return f
	}
	f.units /= float64(f.applies)
	f.wall /= time.Duration(f.applies)
	f.sdUnit = math.Sqrt(ss / n)
	if nb > 0 {
		f.sdBlock = math.Sqrt(bss / nb)
	}
	f.mean = results.Summarize(all).Mean
	f.seApply = f.sdUnit / math.Sqrt(f.units)
	between := results.Summarize(f.apMeans)
	f.seBetween = between.Stdev
	f.meanSE = math.Max(f.seApply, f.seBetween) / math.Sqrt(float64(f.applies))
	f.mde = mde10(f.sdUnit, int(f.units), f.wall, 10*time.Minute)
	f.mdeSeen = mde10(math.Max(f.seApply, f.seBetween)*math.Sqrt(f.units), int(f.units), f.wall, 10*time.Minute)
	return f
}

// printDuet prints the table of figures and the verdict lines.
func printDuet(w io.Writer, applies []duetApply) {
	fmt.Fprintf(w, "\nduet vs foldover (issue 32 part 1), load %s now; equal runs of 2 s per apply\n", loadAvg())
	fmt.Fprintf(w, "%-9s %7s %6s %8s %11s %9s %8s %8s %8s %8s %9s %9s\n",
		"design", "applies", "units", "wall", "load 1-min", "mean ln", "sd unit", "sd blk", "SE apply", "SE seen", "MDE 10m", "MDE seen")
	fs := map[string]duetFigures{}
	for _, kind := range []string{"foldover", "duet", "A/A duet"} {
		f := duetSummary(kind, applies)
		fs[kind] = f
		blk := "-"
		if f.sdBlock > 0 {
			blk = fmt.Sprintf("%.3f", f.sdBlock)
		}
		fmt.Fprintf(w, "%-9s %7d %6.1f %8s %5.1f–%-5.1f %+9.3f %8.3f %8s %8.3f %8.3f %8.1f%% %8.1f%%\n",
			kind, f.applies, f.units, f.wall.Round(time.Second), f.loadLo, f.loadHi, f.mean, f.sdUnit, blk,
			f.seApply, f.seBetween, 100*f.mde, 100*f.mdeSeen)
	}
	for _, line := range duetVerdicts(fs["foldover"], fs["duet"], fs["A/A duet"]) {
		fmt.Fprintln(w, line)
	}
}

// duetVerdicts are the goal lines: the duet measures the same shape as
// the foldover, has no bias between its pairs, and a smaller MDE at equal
// benchmark time; it decides more only with all three.
func duetVerdicts(fold, duet, aa duetFigures) []string {
	margin := math.Log1p(verdicts.DefaultShapeMargin)
	diff := duet.mean - fold.mean
	seDiff := math.Hypot(duet.meanSE, fold.meanSE)
	same := math.Abs(diff)+1.96*seDiff < margin || math.Abs(diff) < 1.96*seDiff
	unbiased := math.Abs(aa.mean) < 1.96*aa.meanSE || math.Abs(aa.mean)+1.96*aa.meanSE < margin
	smaller := duet.mdeSeen < fold.mdeSeen
	lines := []string{
		fmt.Sprintf("the duet measures the foldover's shape: ln(9000/1500) duet %+.3f, foldover %+.3f, difference %+.3f ± %.3f (95 %%; shown equal within ±5 %%: %v): %s",
			duet.mean, fold.mean, diff, 1.96*seDiff, math.Abs(diff)+1.96*seDiff < margin, metOrNot(same)),
		fmt.Sprintf("no bias between the duet's pairs: A/A ln(b/a) %+.3f ± %.3f (95 %%), max skew %.1f ms: %s",
			aa.mean, 1.96*aa.meanSE, math.Max(duet.skewMs, aa.skewMs), metOrNot(unbiased)),
		fmt.Sprintf("smaller MDE in 10 min of benchmark time: duet %.1f %% (within-apply %.1f %%) vs foldover %.1f %% (%.1f %%), SE per apply ×%.2f: %s",
			100*duet.mdeSeen, 100*duet.mde, 100*fold.mdeSeen, 100*fold.mde, duet.seApply/fold.seApply, metOrNot(smaller)),
	}
	winner := "the foldover"
	if same && unbiased && smaller {
		winner = "the duet"
	}
	return append(lines, fmt.Sprintf("duet vs foldover: %s decides more", winner))
}
