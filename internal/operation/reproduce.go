package operation

import (
	"fmt"
	"os"
	"strings"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Judge judges a new run (its records newRecs, its lab directory newDir)
// against the published run of the bundle in dir: cell by cell (within ±
// margin of each published mean), shape by shape (each shape's change
// within ± shapeMargin, paired by block: verdicts.Shapes), and the spec's
// expect blocks on the new run.
func Judge(lab *spec.Lab, dir string, info bundle.Info, pubInfo results.RunInfo, pubRecs []results.Record,
	newInfo results.RunInfo, newDir string, newRecs []results.Record, metric string, margin, shapeMargin float64) (*Reproduction, error) {
	if lab.Hash != info.SpecHash {
		return nil, fmt.Errorf("bundle %s: the spec in %s/ hashes to %.12s, %s says %.12s", dir, bundle.SpecDir, lab.Hash, bundle.InfoFile, info.SpecHash)
	}
	exps, err := Expectations(lab)
	if err != nil {
		return nil, err
	}
	newGroups := results.Group(newRecs)
	r := &Reproduction{
		Bundle: dir, Lab: info.Lab, PublishedRun: pubInfo.ID, NewRun: newInfo.ID, NewRunDir: newDir,
		Metric: metric, Margin: margin, ShapeMargin: shapeMargin,
		Cells: ReproduceCells(results.Group(pubRecs), newGroups, metric, margin),
		Shapes: verdicts.Shapes(results.Group(pubRecs), newGroups, verdicts.ShapeOptions{Metric: metric, Margin: shapeMargin,
			PublishedDesign: pubInfo.DesignOf, NewDesign: newInfo.DesignOf}),
		Expects: verdicts.Evaluate(newGroups, exps),
		// The bundle's own run, judged by the same expect blocks: an
		// expectation it failed too (a seed's shape this machine kind does
		// not show, said in the spec) is reproduced by failing again.
		BundleExpects: verdicts.Evaluate(results.Group(pubRecs), exps),
	}
	if newInfo.Status != results.StatusComplete {
		verdicts.MarkIncomplete(r.Expects, fmt.Sprintf("run %s ended %s", newInfo.ID, newInfo.Status))
	}
	r.Verdict = r.Overall()
	return r, nil
}

// WorkDir makes the directory the spec runs in: dir when it is new or
// empty, else a new temporary directory.
func WorkDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "lab-reproduce-")
	}
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return "", fmt.Errorf("reproduce -work %s: the directory is not empty", dir)
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// LoadRun loads run id (or alias) of store and checks it is of lab.
func LoadRun(store results.Store, id, lab string) (results.RunInfo, []results.Record, error) {
	id, err := store.Resolve(id)
	if err != nil {
		return results.RunInfo{}, nil, err
	}
	info, recs, err := store.Load(id)
	if err == nil && info.Lab != lab {
		err = fmt.Errorf("run %s belongs to lab %q, the bundle to lab %q", id, info.Lab, lab)
	}
	return info, recs, err
}

// CellReproduction is one cell's verdict.
type CellReproduction struct {
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	CellKey    string `json:"cell_key"`
	verdicts.Equivalence
}

// ReproduceCells judges every published cell against the new run's.
func ReproduceCells(published, new []results.CellGroup, metric string, margin float64) []CellReproduction {
	type key struct{ exp, pair, cell string }
	byKey := map[key]results.CellGroup{}
	for _, g := range new {
		byKey[key{g.Experiment, g.Pair, g.CellKey}] = g
	}
	var out []CellReproduction
	for _, p := range published {
		c := CellReproduction{Experiment: p.Experiment, Pair: p.Pair, CellKey: p.CellKey}
		n, ok := byKey[key{p.Experiment, p.Pair, p.CellKey}]
		c.Equivalence = verdicts.TOST(p.Metric(metric), n.Metric(metric), margin)
		same, why := verdicts.Comparable(verdicts.CellEnvironmentOf(p), verdicts.CellEnvironmentOf(n))
		switch {
		case !ok:
			c.Note = "not in the new run"
		case !same:
			c.Verdict, c.Note = verdicts.EnvNotComparable, "not comparable: "+why
			why = ""
		case n.Failed+n.Missing > 0:
			c.Note = strings.TrimPrefix(c.Note+"; ", "; ") + fmt.Sprintf("%d new run(s) failed or missing", n.Failed+n.Missing)
		}
		if ok && why != "" {
			c.Note = strings.TrimPrefix(c.Note+"; ", "; ") + strings.NewReplacer("base:", "published:", "test:", "new:", "the base", "the published run", "the test", "the new run").Replace(why)
		}
		out = append(out, c)
	}
	return out
}

// Reproduction is what reproduce prints (JSON: one object).
type Reproduction struct {
	Type         string  `json:"type"`
	Bundle       string  `json:"bundle"`
	Lab          string  `json:"lab"`
	PublishedRun string  `json:"published_run"`
	NewRun       string  `json:"new_run"`
	NewRunDir    string  `json:"new_run_dir"`
	Metric       string  `json:"metric"`
	Margin       float64 `json:"margin"`
	// ShapeMargin is the margin of a shape's change (verdicts.Shapes).
	ShapeMargin float64            `json:"shape_margin"`
	Cells       []CellReproduction `json:"cells"`
	Shapes      []verdicts.Shape   `json:"shapes"`
	Expects     []verdicts.Outcome `json:"expects"`
	// BundleExpects are the same expect blocks on the bundle's run, in
	// the order of Expects.
	BundleExpects []verdicts.Outcome    `json:"bundle_expects"`
	Verdict       verdicts.Reproduction `json:"verdict"`
}

// Overall is not reproduced when a cell or a shape is, or an
// expect block fails (or is not reproduced) that passed on the bundle's
// run; reproduced when every cell and every shape is, and every
// expect block passes, is reproduced, is not comparable with the post's
// hardware (as in lab check, never a failure) or fails as it did on the
// bundle's run; inconclusive otherwise (a block failing now that was
// inconclusive on the bundle's run among them: the bundle claimed nothing).
func (r *Reproduction) Overall() verdicts.Reproduction {
	r.Type = "reproduce"
	v := verdicts.Reproduced
	for _, c := range r.Cells {
		switch c.Verdict {
		case verdicts.NotReproduced:
			return verdicts.NotReproduced
		case verdicts.Inconclusive, verdicts.EnvNotComparable:
			v = verdicts.Inconclusive
		}
	}
	for _, s := range r.Shapes {
		switch s.Verdict {
		case verdicts.NotReproduced:
			return verdicts.NotReproduced
		case verdicts.Inconclusive:
			v = verdicts.Inconclusive
		}
	}
	for i, o := range r.Expects {
		was := r.BundleVerdict(i)
		switch {
		case FailedExpect(o.Verdict) && FailedExpect(was): // as published
		case FailedExpect(o.Verdict) && (was == verdicts.VerdictPass || was == verdicts.VerdictReproduced):
			return verdicts.NotReproduced
		case o.Verdict == verdicts.VerdictPass, o.Verdict == verdicts.VerdictReproduced, o.Verdict == verdicts.VerdictNotComparable:
		default:
			v = verdicts.Inconclusive
		}
	}
	return v
}

// FailedExpect says whether v is an expect block's verdict that lab check exits 2 on.
func FailedExpect(v verdicts.Verdict) bool {
	return v == verdicts.VerdictFail || v == verdicts.VerdictNotReproduced
}

// BundleVerdict is expect block i's verdict on the bundle's run (""
// when unknown).
func (r *Reproduction) BundleVerdict(i int) verdicts.Verdict {
	if i < len(r.BundleExpects) && r.BundleExpects[i].Name == r.Expects[i].Name {
		return r.BundleExpects[i].Verdict
	}
	return ""
}
