package operation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

// ReproduceArgs are reproduce's arguments, parsed from its flags by the
// CLI.
type ReproduceArgs struct {
	// Bundle is the bundle's directory.
	Bundle string
	// AllowedSigners, when set, is the file of keys one of which must
	// have signed the bundle's manifest.
	AllowedSigners string
	// Margin and ShapeMargin are the equivalence margins; unless set on
	// the command line (MarginSet, ShapeMarginSet) the bundle's win.
	Margin, ShapeMargin       float64
	MarginSet, ShapeMarginSet bool
	Metric                    string
	// Strict fails an inconclusive verdict too.
	Strict bool
	// Work is the directory the spec runs in ("": a new temporary one);
	// Results, instead, an existing run of the lab directory to judge.
	Work, Results string
	// Vars are the user's -var and -var-file (relative files are the lab
	// directory's); they win over the bundle's variables file.
	Vars Vars
	// Apply are the arguments of the apply of the bundle's spec
	// (AutoApprove, the drivers, the engine's bounds); Vars and
	// SayReaches are reproduce's.
	Apply ApplyArgs
}

// ReproduceView is how reproduce shows what it does: the apply of the
// bundle's spec, then the verdicts.
type ReproduceView interface {
	ApplyView
	// Signed says who signed the bundle's manifest (a key of file).
	Signed(who, file string)
	// Reproducing says which run of which lab is reproduced where.
	Reproducing(runID, lab, bundle, work string)
	// Notes is where lines on the bundle's spec go.
	Notes() io.Writer
	// Reproduction shows the verdicts.
	Reproduction(r *Reproduction) error
}

// Reproduce is `lab reproduce BUNDLE`: it checks a published bundle, runs
// its spec in a work directory (or takes an existing run) and judges each
// cell against the bundle's records; a result not reproduced (with
// Strict: any verdict but reproduced) is ErrExpectFailed.
func (o *Operation) Reproduce(ctx context.Context, args ReproduceArgs, view ReproduceView) error {
	if err := bundle.Verify(args.Bundle); err != nil {
		return fmt.Errorf("refusing the bundle: %w", err)
	}
	if args.AllowedSigners != "" {
		who, err := bundle.VerifySignature(args.Bundle, args.AllowedSigners)
		if err != nil {
			return fmt.Errorf("refusing the bundle: %w", err)
		}
		view.Signed(who, args.AllowedSigners)
	}
	info, err := bundle.ReadInfo(args.Bundle)
	if err != nil {
		return err
	}
	if !args.MarginSet && info.Margin > 0 && info.Margin < 1 {
		args.Margin = info.Margin
	}
	if !args.ShapeMarginSet && info.ShapeMargin > 0 && info.ShapeMargin < 1 {
		args.ShapeMargin = info.ShapeMargin
	}
	pubInfo, pubRecs, err := results.Store{Dir: filepath.Join(args.Bundle, bundle.RecordsDir), ReadOnly: true}.Load(info.RunID)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", args.Bundle, err)
	}
	args.Vars = args.Vars.In(o.Dir) // relative -var-files are the user's lab directory's
	lab, newInfo, newDir, newRecs, err := o.reproduceRun(ctx, args, info, view)
	if err != nil {
		return err
	}
	r, err := Judge(lab, args.Bundle, info, pubInfo, pubRecs, newInfo, newDir, newRecs, args.Metric, args.Margin, args.ShapeMargin)
	if err != nil {
		return err
	}
	if err := view.Reproduction(r); err != nil {
		return err
	}
	if r.Verdict == verdicts.NotReproduced || args.Strict && r.Verdict != verdicts.Reproduced {
		return ErrExpectFailed
	}
	return nil
}

// reproduceRun loads the bundle's spec and produces the run to compare
// (and its lab directory): the Results run of the lab directory, or a new
// apply of the spec in a fresh work directory (the bundle is never written
// to). Either way the spec is read from a copy of what a spec needs
// (bundle.CopySpec), never from the bundle's spec/ itself: a .lab/ there
// is another workspace's state.
func (o *Operation) reproduceRun(ctx context.Context, args ReproduceArgs, info bundle.Info, view ReproduceView) (*spec.Lab, results.RunInfo, string, []results.Record, error) {
	if args.Results != "" {
		tmp, err := os.MkdirTemp("", "lab-reproduce-spec-")
		if err != nil {
			return nil, results.RunInfo{}, "", nil, err
		}
		defer func() { _ = os.RemoveAll(tmp) }() // a copy of the bundle's spec, loaded already
		lab, _, err := o.in(tmp).loadBundleSpec(args.Bundle, info, args.Vars, view.Notes())
		if err != nil {
			return nil, results.RunInfo{}, "", nil, err
		}
		run, recs, err := LoadRun(results.Store{Dir: o.ResultsDir()}, args.Results, info.Lab)
		return lab, run, o.Dir, recs, err
	}
	work, err := WorkDir(args.Work)
	if err != nil {
		return nil, results.RunInfo{}, "", nil, err
	}
	view.Reproducing(info.RunID, info.Lab, args.Bundle, work)
	wo := o.in(work)
	lab, vars, err := wo.loadBundleSpec(args.Bundle, info, args.Vars, view.Notes())
	if err != nil {
		return nil, results.RunInfo{}, "", nil, err
	}
	a := args.Apply
	a.Vars, a.SayReaches = vars, true
	if err := wo.Apply(ctx, a, view); err != nil && !errors.Is(err, ErrExpectFailed) {
		return nil, results.RunInfo{}, "", nil, err // an expect failing is judged below
	}
	run, recs, err := LoadRun(results.Store{Dir: wo.ResultsDir()}, results.AliasLatest, info.Lab)
	return lab, run, work, recs, err
}

// in is o on lab directory dir.
func (o *Operation) in(dir string) *Operation {
	c := *o
	c.Dir = dir
	return &c
}

// loadBundleSpec copies what a spec needs from the bundle in dir into
// o.Dir (CopyBundleSpec) and loads it there with the bundle's variables
// file, then user's -var-file and -var (which win); it returns the
// variables it used.
func (o *Operation) loadBundleSpec(dir string, info bundle.Info, user Vars, notes io.Writer) (*spec.Lab, Vars, error) {
	files, err := CopyBundleSpec(o.Dir, dir, info, user.Files, notes)
	if err != nil {
		return nil, user, err
	}
	vars := Vars{Vars: user.Vars, Files: files}
	lab, err := o.LoadLab(vars)
	if err != nil {
		return nil, vars, err
	}
	return lab, vars, CheckBundleSpec(lab, dir, info)
}
