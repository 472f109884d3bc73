package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// reproduceFlags are reproduce's flags.
type reproduceFlags struct {
	vars       varFlags
	json       bool
	strict     bool
	auto       bool
	margin     percentFlag
	marginSet  bool
	shape      percentFlag
	shapeSet   bool
	metric     string
	work       string
	resultsRun string
	bundleDir  string
	allowed    string
}

func parseReproduceFlags(g *globals, args []string) (*reproduceFlags, error) {
	fl := newFlags(g, "reproduce", "reproduce [-json] [-strict] [-margin 10%] [-shape-margin 5%] [-metric KEY] [-auto-approve] [-work DIR] [-results RUN] [-allowed-signers FILE] [-var k=v] [-var-file F] BUNDLE")
	f := &reproduceFlags{margin: percentFlag{v: defaultMargin}, shape: percentFlag{v: results.DefaultShapeMargin}}
	f.vars.register(fl)
	fl.BoolVar(&f.json, "json", false, "print the verdicts as one JSON object (and apply's events as JSON lines)")
	fl.BoolVar(&f.strict, "strict", false, "exit 2 on an inconclusive verdict too (for CI)")
	fl.BoolVar(&f.auto, "auto-approve", false, "skip the interactive approval of the plan")
	fl.Var(&f.margin, "margin", "equivalence `margin`, a share of each published mean (\"10%\" or 0.1; default: the bundle's)")
	fl.Var(&f.shape, "shape-margin", "the `margin` of a shape's change, a cell over its reference (\"5%\" or 0.05; default: the bundle's)")
	fl.StringVar(&f.metric, "metric", results.MetricThroughput, "the `metric` compared: "+strings.Join(results.MetricKeys(), ", "))
	fl.StringVar(&f.work, "work", "", "run the spec in `DIR` (new or empty; default: a new temporary directory, kept)")
	fl.StringVar(&f.allowed, "allowed-signers", "", "refuse the bundle unless its manifest is signed by a key of `FILE` (ssh-keygen's allowed signers format)")
	fl.StringVar(&f.resultsRun, "results", "", "compare `RUN`, an existing run of the lab directory (-chdir), instead of applying")
	if err := parseFlags(fl, args, arity{1, 1, "the bundle's directory"}); err != nil {
		return nil, err
	}
	fl.Visit(func(fg *flag.Flag) {
		f.marginSet = f.marginSet || fg.Name == "margin"
		f.shapeSet = f.shapeSet || fg.Name == "shape-margin"
	})
	if _, ok := results.MetricByKey(f.metric); !ok {
		return nil, fmt.Errorf("reproduce -metric %q: unknown metric (known: %s)", f.metric, strings.Join(results.MetricKeys(), ", "))
	}
	if f.resultsRun != "" && f.work != "" {
		return nil, fmt.Errorf("reproduce: -results compares an existing run, -work runs the spec: give one of them")
	}
	f.bundleDir = fl.Arg(0)
	return f, nil
}

// runReproduce is `lab reproduce BUNDLE`: check a published bundle, run its
// spec here (or take an existing run) and judge each cell against the
// bundle's records.
func runReproduce(g *globals, args []string) error {
	f, err := parseReproduceFlags(g, args)
	if err != nil {
		return err
	}
	if err := bundle.Verify(f.bundleDir); err != nil {
		return fmt.Errorf("refusing the bundle: %w", err)
	}
	if f.allowed != "" {
		who, err := bundle.VerifySignature(f.bundleDir, f.allowed)
		if err != nil {
			return fmt.Errorf("refusing the bundle: %w", err)
		}
		fmt.Fprintf(g.stderr, "Bundle signed by %q (%s).\n", who, f.allowed)
	}
	info, err := bundle.ReadInfo(f.bundleDir)
	if err != nil {
		return err
	}
	if !f.marginSet && info.Margin > 0 && info.Margin < 1 {
		f.margin.v = info.Margin
	}
	if !f.shapeSet && info.ShapeMargin > 0 && info.ShapeMargin < 1 {
		f.shape.v = info.ShapeMargin
	}
	pubInfo, pubRecs, err := results.Store{Dir: filepath.Join(f.bundleDir, bundle.RecordsDir), ReadOnly: true}.Load(info.RunID)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", f.bundleDir, err)
	}
	lab, newInfo, newRecs, err := reproduceRun(g, f, info)
	if err != nil {
		return err
	}
	r, err := operation.Judge(lab, f.bundleDir, info, pubInfo, pubRecs, newInfo.RunInfo, newInfo.dir, newRecs, f.metric, f.margin.v, f.shape.v)
	if err != nil {
		return err
	}
	if f.json {
		if err := json.NewEncoder(g.stdout).Encode(r); err != nil {
			return err
		}
	} else {
		view.Reproduction(g.stdout, r)
	}
	if r.Verdict == results.NotReproduced || f.strict && r.Verdict != results.Reproduced {
		return reported{exitExpect}
	}
	return nil
}

// candidateRun is the run a bundle is compared with.
type candidateRun struct {
	results.RunInfo
	dir string // its lab directory
}

// reproduceRun loads the bundle's spec and produces the run to compare:
// the -results run of the lab directory, or a new apply of the spec in a
// fresh work directory (the bundle is never written to). Either way the
// spec is read from a copy of what a spec needs (bundle.CopySpec), never
// from the bundle's spec/ itself: a .lab/ there is another workspace's
// state.
func reproduceRun(g *globals, f *reproduceFlags, info bundle.Info) (*spec.Lab, candidateRun, []results.Record, error) {
	out := g.stdout
	if f.json {
		out = g.stderr
	}
	user := f.vars.in(g.dir) // relative -var-files are the user's lab directory's
	if f.resultsRun != "" {
		tmp, err := os.MkdirTemp("", "lab-reproduce-spec-")
		if err != nil {
			return nil, candidateRun{}, nil, err
		}
		defer func() { _ = os.RemoveAll(tmp) }() // a copy of the bundle's spec, loaded already
		sg := *g
		sg.dir = tmp
		lab, _, err := loadBundleSpec(&sg, f.bundleDir, info, user, out)
		if err != nil {
			return nil, candidateRun{}, nil, err
		}
		run, recs, err := operation.LoadRun(results.Store{Dir: g.op().ResultsDir()}, f.resultsRun, info.Lab)
		return lab, candidateRun{run, g.dir}, recs, err
	}
	work, err := operation.WorkDir(f.work)
	if err != nil {
		return nil, candidateRun{}, nil, err
	}
	fmt.Fprintf(out, "Reproducing run %s of lab %q from %s in %s.\n\n", info.RunID, info.Lab, f.bundleDir, work)
	wg := *g
	wg.dir = work
	lab, vars, err := loadBundleSpec(&wg, f.bundleDir, info, user, out)
	if err != nil {
		return nil, candidateRun{}, nil, err
	}
	wg.sayReaches = true
	applyArgs := vars.args()
	if f.auto {
		applyArgs = append(applyArgs, "-auto-approve")
	}
	if f.json {
		applyArgs = append(applyArgs, "-json")
	}
	var r reported
	if err := runApply(&wg, applyArgs); err != nil && !(errors.As(err, &r) && r.code == exitExpect) {
		return nil, candidateRun{}, nil, err // an expect failing is judged below
	}
	run, recs, err := operation.LoadRun(results.Store{Dir: wg.op().ResultsDir()}, results.AliasLatest, info.Lab)
	return lab, candidateRun{run, work}, recs, err
}

// loadBundleSpec copies what a spec needs from the bundle in dir into
// sg.dir (operation.CopyBundleSpec) and loads it there with the bundle's
// variables file, then user's -var-file and -var (which win); it returns
// the variables it used.
func loadBundleSpec(sg *globals, dir string, info bundle.Info, user varFlags, out io.Writer) (*spec.Lab, varFlags, error) {
	files, err := operation.CopyBundleSpec(sg.dir, dir, info, user.files, out)
	if err != nil {
		return nil, user, err
	}
	vars := varFlags{vars: user.vars, files: files}
	lab, err := loadLab(sg, vars)
	if err != nil {
		return nil, vars, err
	}
	return lab, vars, operation.CheckBundleSpec(lab, dir, info)
}

// args renders v as command-line flags again.
func (v varFlags) args() []string {
	var out []string
	for _, f := range v.files {
		out = append(out, "-var-file", f)
	}
	for _, s := range v.vars {
		out = append(out, "-var", s)
	}
	return out
}
