package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
	"gonum.org/v1/gonum/stat/distuv"
)

// sensitivitySpec is the lab BenchmarkSensitivity applies: the spec of
// the pinned bundle CI reproduces (pinnedCI: the quickstart's veth pair,
// two cells, MTU 1500 and 9000, in randomized blocks of 2 s runs) with
// repeat set to blocks — so that the benchmark's A/A rate is the
// false-alarm rate of the CI step. The bundle was published from one of
// the benchmark's applies (LAB_SENS_KEEP).
func sensitivitySpec(blocks int) (string, error) {
	path := filepath.Join(pinnedCI, bundle.SpecDir, "lab.hcl")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	repeat := regexp.MustCompile(`(?m)^(\s*repeat\s*=\s*)[0-9]+`)
	if !repeat.Match(data) {
		return "", fmt.Errorf("%s: no repeat to set", path)
	}
	return repeat.ReplaceAllString(string(data), "${1}"+strconv.Itoa(blocks)), nil
}

// sensitivityScales are the factors one cell of a bundle copy is scaled by
// (1: the bundle itself, an A/A judgment).
var sensitivityScales = []float64{1, 0.9, 0.85, 0.8, 0.67, 0.5, 2.0}

// sensCellMargin is the cell margin of the benchmark's bundles: the pinned
// quickstart bundle's (docs/ci-recipe.md), so that the overall verdict's
// row is the CI step's.
const sensCellMargin = "90%"

// sensitivityCell is the cell whose records a scaled copy multiplies:
// the shape judged is its ratio to the reference cell, mtu=1500.
const sensitivityCell = "mtu=9000"

// BenchmarkSensitivity (issue 32 §7, `make sensitivity`) measures what
// lab reproduce's shape verdicts can and cannot tell on this machine:
// it records LAB_SENS_APPLIES real applies (default 6) of sensitivitySpec
// with LAB_SENS_BLOCKS blocks (default 20), every second one with a CPU
// hog per core running outside the namespaces, publishes a bundle of each
// and judges every other apply against it (lab reproduce -results: no new
// apply) — as is (A/A) and with one cell's throughput scaled by each of
// sensitivityScales. It prints the not-reproduced rates of the old shape
// rule (the sides of the ratios' Fieller intervals, computed here) and of
// the rule the lab binary applies, and the goals of issue 32 as MET or
// NOT met. The bundles have the pinned quickstart bundle's cell margin
// (sensCellMargin) and the shape margin LAB_SENS_SHAPE_MARGIN (default
// verdicts.DefaultShapeMargin). LAB_SENS_KEEP=DIR keeps the lab directory (its runs and
// sensitivity-applies.json, each apply's load) in DIR; run again with the
// same DIR, the benchmark judges the applies already there anew (with the
// rule of the lab binary built now) and applies only the missing ones.
func BenchmarkSensitivity(b *testing.B) {
	needNamespacesB(b)
	applies, blocks := envInt("LAB_SENS_APPLIES", 6), envInt("LAB_SENS_BLOCKS", 20)
	dir := b.TempDir()
	if keep := os.Getenv("LAB_SENS_KEEP"); keep != "" {
		dir = keep
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "lab.hcl")); err == nil {
		_, rest, _ := strings.Cut(string(data), "repeat = ")
		if _, err := fmt.Sscanf(rest, "%d", &blocks); err != nil {
			b.Fatalf("%s/lab.hcl: no repeat: %v", dir, err)
		}
	} else {
		src, err := sensitivitySpec(blocks)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	runs := reusedApplies(b, dir)
	reused := len(runs)
	for i := len(runs); i < applies; i++ {
		runs = append(runs, sensitivityApply(b, dir, i%2 == 1))
		a := runs[i]
		fmt.Printf("sensitivity: apply %d (%s, hog %v): %s, load %.1f → %.1f, ln(9000/1500) %+.3f ± %.3f (sd of %d blocks)\n",
			i+1, a.Run, a.Hog, a.Wall.Round(time.Second), a.Load0, a.Load1, a.Shape, a.ShapeSD, blocks)
		data, err := json.MarshalIndent(runs, "", "  ")
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, sensAppliesFile), data, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	shapeMargin := os.Getenv("LAB_SENS_SHAPE_MARGIN")
	if shapeMargin == "" {
		shapeMargin = fmt.Sprint(verdicts.DefaultShapeMargin)
	}
	bundles := make([]string, applies)
	for i, a := range runs {
		bundles[i] = filepath.Join(b.TempDir(), "bundle")
		if _, stderr, err := lab(b, dir, "publish", "-o", bundles[i], "-margin", sensCellMargin, "-shape-margin", shapeMargin, a.Run); err != nil {
			b.Fatalf("publish %s: %v\n%s", a.Run, err, stderr)
		}
	}
	var t sensTally
	for i, a := range runs {
		for _, scale := range sensitivityScales {
			copyDir := bundles[i]
			if scale != 1 {
				copyDir = copyBundle(b, bundles[i])
				scaleRecords(b, filepath.Join(copyDir, bundle.RecordsDir, a.Run, "mtu", "veth", sensitivityCell), scale)
				if err := bundle.Sign(copyDir); err != nil {
					b.Fatal(err)
				}
			}
			for j, n := range runs {
				if j != i {
					j := sensitivityJudge(b, dir, copyDir, a.Run, n, scale)
					j.pubHog = a.Hog
					t.add(j)
				}
			}
		}
	}
	// The benchmark time is the applies' (also those of an earlier run in
	// a kept directory) and this run's judging.
	benchTime := time.Since(start)
	for i, a := range runs {
		if i < reused {
			benchTime += a.Wall
		}
	}
	b.ReportMetric(benchTime.Seconds(), "s-benchmark")
	t.print(os.Stdout, runs, blocks, benchTime)
}

// sensAppliesFile, in a kept lab directory, lists the applies made.
const sensAppliesFile = "sensitivity-applies.json"

// sensApply is one real apply of the benchmark.
type sensApply struct {
	Run          string        `json:"run"`
	Hog          bool          `json:"hog"`
	Wall         time.Duration `json:"wall"`
	Load0, Load1 float64       // 1-minute load average before and after
	// Shape and ShapeSD are the mean and standard deviation over the
	// blocks of ln(mtu=9000 / mtu=1500).
	Shape, ShapeSD float64
}

// reusedApplies are the applies a kept lab directory already holds.
func reusedApplies(b *testing.B, dir string) []sensApply {
	data, err := os.ReadFile(filepath.Join(dir, sensAppliesFile))
	if os.IsNotExist(err) {
		return nil
	}
	var runs []sensApply
	if err == nil {
		err = json.Unmarshal(data, &runs)
	}
	if err != nil {
		b.Fatalf("%s: %v", sensAppliesFile, err)
	}
	fmt.Printf("sensitivity: judging again the %d applies of %s\n", len(runs), dir)
	return runs
}

// sensitivityApply applies dir's lab once, with a CPU hog per core when
// hog is set.
func sensitivityApply(b *testing.B, dir string, hog bool) sensApply {
	a := sensApply{Hog: hog}
	if hog {
		stop := cpuHogs(b, runtime.NumCPU())
		defer stop()
		time.Sleep(5 * time.Second) // let the load average feel them
	}
	a.Load0 = loadOne(loadAvg())
	t0 := time.Now()
	if stdout, stderr, err := lab(b, dir, "apply", "-auto-approve"); err != nil {
		b.Fatalf("apply: %v\n%s\n%s", err, stdout, stderr)
	}
	a.Wall, a.Load1 = time.Since(t0), loadOne(loadAvg())
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, err := rs.Latest()
	if err != nil {
		b.Fatal(err)
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		b.Fatal(err)
	}
	a.Run = id
	a.Shape, a.ShapeSD = blockLogRatios(recs, sensitivityCell, "mtu=1500")
	return a
}

// cpuHogs starts n busy loops outside the namespaces; stop kills them by
// their process ids.
func cpuHogs(b *testing.B, n int) (stop func()) {
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	return func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
}

// blockLogRatios is the mean and standard deviation of ln(cell /
// reference) over the blocks (repeats) in which both ran.
func blockLogRatios(recs []results.Record, cell, ref string) (mean, sd float64) {
	by := map[int]map[string]float64{}
	for _, r := range recs {
		if r.Warmup || r.Metrics.ThroughputBps <= 0 {
			continue
		}
		if by[r.Repeat] == nil {
			by[r.Repeat] = map[string]float64{}
		}
		by[r.Repeat][r.CellKey] = r.Metrics.ThroughputBps
	}
	var xs []float64
	for _, m := range by {
		if c, r := m[cell], m[ref]; c > 0 && r > 0 {
			xs = append(xs, math.Log(c/r))
		}
	}
	s := results.Summarize(xs)
	return s.Mean, s.Stdev
}

// sensJudgment is one lab reproduce -results of run against a bundle
// (scaled copy).
type sensJudgment struct {
	scale float64
	hog   bool // the judged run was applied under the CPU hogs
	// pubHog: the bundle's run was.
	pubHog bool
	// oldNR: the old rule (Fieller sides) says the shape is not
	// reproduced (reversed); newNR: the binary's rule says so; newRule:
	// the binary's shapes are the paired rule's (they carry mde).
	oldNR, newNR, newRule bool
	overallNR             bool // lab reproduce's overall verdict (exit 2)
	// lo and hi bound the 95 % interval of the shape's change on the log
	// scale (the new rule's change_low and change_high), from which its
	// verdict at any other shape margin follows.
	lo, hi float64
}

// newNRAt is the new rule's verdict at shape margin m: not reproduced
// when the 95 % interval of the change lies wholly beyond ±ln(1+m)
// (verdicts.JudgeShapeChange).
func (j sensJudgment) newNRAt(m float64) bool {
	edge := math.Log1p(m)
	return j.newRule && (j.lo > edge || j.hi < -edge)
}

// sensShapeMargins are the shape margins the table shows the new rule
// at, beside the bundle's own.
var sensShapeMargins = []float64{0.10, 0.15, 0.20}

// sensitivityJudge runs lab reproduce -json -results run.Run bundleDir.
func sensitivityJudge(b *testing.B, dir, bundleDir, pubRun string, run sensApply, scale float64) sensJudgment {
	stdout, stderr, err := lab(b, dir, "reproduce", "-json", "-results", run.Run, bundleDir)
	if code := exitStatus(err); code != exitOK && code != exitExpect {
		b.Fatalf("reproduce: exit %d\n%s\n%s", code, stdout, stderr)
	}
	j := sensJudgment{scale: scale, hog: run.Hog}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var r struct {
		Verdict string `json:"verdict"`
		Shapes  []struct {
			CellKey    string   `json:"cell_key"`
			Verdict    string   `json:"verdict"`
			MDE        *float64 `json:"mde"`
			ChangeLow  float64  `json:"change_low"`
			ChangeHigh float64  `json:"change_high"`
		} `json:"shapes"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		b.Fatalf("reproduce -json: %v\n%s", err, stdout)
	}
	j.overallNR = r.Verdict == string(verdicts.NotReproduced)
	for _, s := range r.Shapes {
		if s.CellKey == sensitivityCell {
			j.newRule = s.MDE != nil
			j.newNR = s.Verdict == string(verdicts.NotReproduced)
			j.lo, j.hi = math.Log1p(s.ChangeLow), math.Log1p(s.ChangeHigh)
		}
	}
	_, pub, err := results.Store{Dir: filepath.Join(bundleDir, bundle.RecordsDir)}.Load(pubRun)
	if err != nil {
		b.Fatal(err)
	}
	_, cur, err := results.Store{Dir: filepath.Join(dir, "results")}.Load(run.Run)
	if err != nil {
		b.Fatal(err)
	}
	j.oldNR = oldShapeReversed(pub, cur, sensitivityCell, "mtu=1500")
	return j
}

// oldShapeReversed is the shape rule lab reproduce applied before issue
// 32 (verdicts.Shapes at 345db22): the shape is not reproduced only when
// the published ratio cell/reference has its 95 % Fieller interval on one
// side of 1 and the new run's lies wholly on the other side.
func oldShapeReversed(pub, cur []results.Record, cell, ref string) bool {
	side := func(recs []results.Record) int {
		var c, r results.Summary
		for _, g := range results.Group(recs) {
			switch g.CellKey {
			case cell:
				c = g.Metric(results.MetricThroughput)
			case ref:
				r = g.Metric(results.MetricThroughput)
			}
		}
		lo, hi, ok := verdicts.Fieller(c, r, 0.05)
		switch {
		case !ok:
			return 0
		case lo > 1:
			return 1
		case hi < 1:
			return -1
		}
		return 0
	}
	want := side(pub)
	return want != 0 && side(cur) == -want
}

// sensTally counts the judgments by scale and load.
type sensTally struct {
	js []sensJudgment
}

func (t *sensTally) add(j sensJudgment) { t.js = append(t.js, j) }

// sensRate is k of n.
type sensRate struct{ k, n int }

func (r sensRate) String() string {
	if r.n == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.0f %%)", r.k, r.n, 100*float64(r.k)/float64(r.n))
}

func (r sensRate) share() float64 {
	if r.n == 0 {
		return math.NaN()
	}
	return float64(r.k) / float64(r.n)
}

// rate is the share of the judgments at scale (and, when hog is non-nil,
// of runs applied with or without the hogs) that which says not
// reproduced.
func (t *sensTally) rate(scale float64, hog *bool, which func(sensJudgment) bool) sensRate {
	var r sensRate
	for _, j := range t.js {
		if j.scale == scale && (hog == nil || j.hog == *hog) {
			r.n++
			if which(j) {
				r.k++
			}
		}
	}
	return r
}

// newRule says whether the binary's shapes are the paired rule's.
func (t *sensTally) newRule() bool {
	for _, j := range t.js {
		if j.newRule {
			return true
		}
	}
	return false
}

// sensRule is a row of the table: a rule's name and whether it says a
// judgment's shape (or, overall, the bundle) is not reproduced.
type sensRule struct {
	name  string
	which func(sensJudgment) bool
}

// print writes the table and the goals.
func (t *sensTally) print(w io.Writer, runs []sensApply, blocks int, benchTime time.Duration) {
	maxLoad, maxWall := 0.0, time.Duration(0)
	for _, a := range runs {
		maxLoad = math.Max(maxLoad, math.Max(a.Load0, a.Load1))
		maxWall = max(maxWall, a.Wall)
	}
	fmt.Fprintf(w, "\nsensitivity: %d applies of 2 cells (MTU 1500, 9000) × %d blocks × 2 s (one apply ≤ %s), every second one with %d CPU hogs; benchmark time %s (applies and judging); load (1 min) up to %.1f\n",
		len(runs), blocks, maxWall.Round(time.Second), runtime.NumCPU(), benchTime.Round(time.Second), maxLoad)
	fmt.Fprintf(w, "| apply | run | CPU hogs | wall | load before → after | ln(9000/1500), mean ± sd over blocks |\n|---:|---|---|---:|---:|---:|\n")
	for i, a := range runs {
		fmt.Fprintf(w, "| %d | %s | %v | %s | %.1f → %.1f | %+.3f ± %.3f |\n", i+1, a.Run, a.Hog, a.Wall.Round(time.Second), a.Load0, a.Load1, a.Shape, a.ShapeSD)
	}
	rules := []sensRule{{"old shape rule (Fieller sides)", func(j sensJudgment) bool { return j.oldNR }}}
	newRule := t.newRule()
	if newRule {
		rules = append(rules,
			sensRule{"new shape rule (block-paired log-ratios), the bundle's shape margin", func(j sensJudgment) bool { return j.newNR }},
			sensRule{"lab reproduce overall (exit 2), the bundle's margins", func(j sensJudgment) bool { return j.overallNR }})
		for _, m := range sensShapeMargins {
			rules = append(rules, sensRule{fmt.Sprintf("new shape rule, shape margin %.0f %%", 100*m), func(j sensJudgment) bool { return j.newNRAt(m) }})
		}
	}
	fmt.Fprintf(w, "\n| shape *not reproduced* | A/A |")
	for _, s := range sensitivityScales[1:] {
		fmt.Fprintf(w, " ×%g |", s)
	}
	fmt.Fprintf(w, "\n|---|---:|%s\n", strings.Repeat("---:|", len(sensitivityScales)-1))
	for _, r := range rules {
		fmt.Fprintf(w, "| %s |", r.name)
		for _, s := range sensitivityScales {
			fmt.Fprintf(w, " %s |", t.rate(s, nil, r.which))
		}
		fmt.Fprintln(w)
	}
	if !newRule {
		fmt.Fprintln(w, "| new rule | not yet merged |")
	}
	n := applyNoise(runs, blocks)
	fmt.Fprintf(w, "\nshape noise over the applies (log scale): one apply's SE %.3f (median), apply-to-apply SD beyond it %.3f; the new rule's not-reproduced rate that noise predicts:\n", n.se, n.tau)
	fmt.Fprintf(w, "| shape margin | A/A |")
	for _, s := range sensitivityScales[1:] {
		fmt.Fprintf(w, " ×%g |", s)
	}
	fmt.Fprintf(w, "\n|---:|---:|%s\n", strings.Repeat("---:|", len(sensitivityScales)-1))
	for _, m := range append([]float64{verdicts.DefaultShapeMargin}, sensShapeMargins...) {
		fmt.Fprintf(w, "| %.0f %% |", 100*m)
		for _, s := range sensitivityScales {
			fmt.Fprintf(w, " %.1f %% |", 100*n.notReproducedRate(m, math.Log(s)))
		}
		fmt.Fprintln(w)
	}
	for _, r := range rules {
		fmt.Fprintf(w, "\ngoals, %s:\n", r.name)
		for _, g := range t.goals(r.which, maxLoad, maxWall) {
			fmt.Fprintf(w, "- %s: %s\n", metOrNot(g.met), g.text)
		}
	}
}

// shapeNoise is what the applies show of a shape's noise on the log
// scale: se, the standard error of one apply's mean log-ratio (its
// blocks' SD / √blocks, the median over the applies), and tau, the SD of
// the shape from apply to apply beyond that (0 when the applies' means
// spread no more than their standard errors say).
type shapeNoise struct {
	se, tau float64
	df      int // the rule's degrees of freedom for two applies
}

// applyNoise estimates shapeNoise from the applies.
func applyNoise(runs []sensApply, blocks int) shapeNoise {
	var means, ses []float64
	for _, a := range runs {
		means = append(means, a.Shape)
		ses = append(ses, a.ShapeSD/math.Sqrt(float64(blocks)))
	}
	n := shapeNoise{se: median(ses), df: 2*blocks - 2}
	if len(runs) > 1 {
		v := results.Summarize(means).Stdev
		n.tau = math.Sqrt(math.Max(0, v*v-n.se*n.se))
	}
	return n
}

// notReproducedRate is the probability that the new rule at shape margin
// m calls a shape not reproduced when it truly changed by delta (log
// scale) between two applies with this noise: the rule's interval is Δ ±
// t·√2·se, while Δ itself varies by √2·√(se² + tau²).
func (n shapeNoise) notReproducedRate(m, delta float64) float64 {
	half := results.TCritical95(n.df) * math.Sqrt2 * n.se
	sd := math.Sqrt2 * math.Hypot(n.se, n.tau)
	edge := math.Log1p(m)
	z := distuv.UnitNormal
	return z.CDF((delta-edge-half)/sd) + z.CDF((-delta-edge-half)/sd)
}

// sensGoal is one goal row of issue 32.
type sensGoal struct {
	text string
	met  bool
}

// goals judges issue 32's goals for this machine kind from the judgments
// of rule which: the A/A rate, the power at ×0.9 (10 %) and ×0.85
// (15 %), and whether a verdict moves with the load alone (any A/A
// judgment not reproduced between a bundle and a run applied at different
// loads, one with the CPU hogs and one without).
func (t *sensTally) goals(which func(sensJudgment) bool, maxLoad float64, maxWall time.Duration) []sensGoal {
	aa := t.rate(1, nil, which)
	p10, p15 := t.rate(0.9, nil, which), t.rate(0.85, nil, which)
	// Only the load moves between a bundle and a run applied at the
	// other load (one with the hogs, one without) and no scale: such an
	// A/A verdict must never be not reproduced.
	var cross sensRate
	for _, j := range t.js {
		if j.scale == 1 && j.hog != j.pubHog {
			cross.n++
			if which(j) {
				cross.k++
			}
		}
	}
	return []sensGoal{
		{fmt.Sprintf("A/A not reproduced ≤ 5 %% at any load: %s", aa), aa.n > 0 && aa.share() <= 0.05},
		{fmt.Sprintf("10 %% change detected ≥ 80 %% within 10 min at load ≤ 32: %s, apply %s, load ≤ %.1f", p10, maxWall.Round(time.Second), maxLoad),
			p10.n > 0 && p10.share() >= 0.8 && maxWall <= 10*time.Minute && maxLoad <= 32},
		{fmt.Sprintf("15 %% change detected ≥ 80 %% at any load: %s", p15), p15.n > 0 && p15.share() >= 0.8},
		{fmt.Sprintf("no shape verdict moves when only the load moves (A/A, bundle and run at different loads): not reproduced %s", cross), cross.n > 0 && cross.k == 0},
	}
}

// envInt is the integer in environment variable k, or def.
func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}
