package operation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// ApplySelection is the runs an apply is limited to: -only, checked
// against the lab, and -resume RUN ("" for none), read from rs.
func ApplySelection(rs results.Store, lab *spec.Lab, only Only, resume string) (Selection, error) {
	sel := Selection{Only: only}
	if err := only.Check(lab); err != nil {
		return sel, err
	}
	if resume != "" {
		var err error
		if sel.Resume, err = LoadResume(rs, lab, resume); err != nil {
			return sel, err
		}
	}
	return sel, nil
}

// CheckSaved checks a saved plan against the workspace's state before
// apply carries it out.
func (w *Workspace) CheckSaved(p *plan.Plan) error {
	if err := p.CheckFresh(w.State, w.Lab.Hash); err != nil {
		return err
	}
	if w.State.Serial == 0 {
		// A plan of a lab never applied named its machines after the
		// workspace it saw: this state, not saved yet, is that one.
		w.State.Lineage = p.Lineage
	}
	return nil
}

// Apply is one apply of a workspace's plan: checked against the lab's lock
// file before anything is created, then run by the engine.
type Apply struct {
	w    *Workspace
	plan *plan.Plan
	// Lock is the lab's lock file; nil: the lab has none yet.
	Lock       *lockfile.Lock
	lockDigest string
	// Guard holds the runs to Lock.
	Guard  *LockGuard
	strict bool
	// Run takes the records (set by Start).
	Run        *results.Run
	provenance results.Provenance
}

// PrepareApply reads the lab's lock file and compares, before anything is
// created, each machine's template with the saved plan's and (strict:
// -locked) the lock file's. ctx bounds the providers' calls.
func (w *Workspace) PrepareApply(ctx context.Context, p *plan.Plan, strict bool) (*Apply, error) {
	lock, lockDigest, err := lockfile.Read(w.op.Dir)
	if err != nil {
		return nil, err
	}
	if strict && lock == nil {
		return nil, fmt.Errorf("-locked needs %s, and this lab has none yet: run `lab apply` once without -locked (or `lab init -upgrade` after a run)", lockfile.FileName)
	}
	if err := CheckTemplatesBeforeCreate(ctx, p, w.Providers, lock, strict); err != nil {
		return nil, err
	}
	return &Apply{w: w, plan: p, Lock: lock, lockDigest: lockDigest, Guard: NewLockGuard(lock, strict, w.op.Stderr), strict: strict}, nil
}

// Start starts the results of this apply — a new run, or the resumed one
// reopened — and the provenance every record carries, naming this apply.
func (a *Apply) Start(resume *ResumePoint) error {
	var err error
	a.Run, a.provenance, err = a.w.op.newRun(a.w.Lab, a.w.op.ResultStore(), a.lockDigest, resume, a.plan.OrderSeed, PlannedCells(a.plan), a.plan.Design)
	return err
}

// ApplyOptions are apply's flags and what the engine needs from the CLI.
type ApplyOptions struct {
	Parallelism int
	// RunsAtOnce is the engine's bound on runs in flight (1: one at a
	// time; engine.Engine.RunsAtOnce).
	RunsAtOnce int
	Keep       bool
	View       engine.View
	// OS and Runner map a template's os and a benchmark's tool to their
	// drivers.
	OS     func(name string) (guest.OS, error)
	Runner func(tool string) (bench.Runner, error)
	// Counters maps a template's os to how it reads the counters recorded
	// around each run; nil: none.
	Counters func(osName string) guest.Counters
	// AbandonCommand is the command that lets a borrowed machine go.
	AbandonCommand func(addr string) string
}

// Execute has the engine carry out the plan (work cancels the runs,
// teardown the teardown) and finishes the run with the status it ended
// with (results.StatusComplete, …).
func (a *Apply) Execute(work, teardown context.Context, opt ApplyOptions) (engine.Outcome, string, error) {
	w := a.w
	eng := &engine.Engine{
		State: w.State, Store: w.Store, Providers: w.Providers, OS: opt.OS, Runner: opt.Runner, Counters: opt.Counters, Results: a.Run, View: LoggedView(opt.View, w.op.Log),
		Parallelism: opt.Parallelism, RunsAtOnce: opt.RunsAtOnce, Keep: opt.Keep, RunID: a.Run.ID(), Lab: w.Lab.Name, Provenance: a.provenance,
		AfterRun: a.Guard.AfterRun, HostLock: w.op.HostLock(w.Lab.Name),
		AbandonCommand: opt.AbandonCommand,
	}
	outcome, applyErr := eng.Apply(work, teardown, a.plan)
	status := results.StatusComplete
	switch {
	case outcome.Interrupted:
		status = results.StatusInterrupted
	case applyErr != nil:
		status = results.StatusFailed
	}
	finishErr := a.Run.Finish(status)
	if finishErr == nil {
		w.op.archiveRun(a.Run.Dir())
	}
	return outcome, status, errors.Join(applyErr, finishErr)
}

// WriteLockFile writes the lab's first lock file after a complete apply
// (the lab had none and status is complete) from what the runs observed;
// it reports whether it wrote one.
func (a *Apply) WriteLockFile(status string) (bool, error) {
	if a.Lock != nil || status != results.StatusComplete || len(a.Guard.Observed.Machines) == 0 {
		return false, nil
	}
	if _, err := lockfile.Write(a.w.op.Dir, a.Guard.Observed); err != nil {
		return false, err
	}
	return true, nil
}

// newRun starts the results of this apply — a new run, recording the
// plan's order seed, the repeats it planned per cell and each experiment's
// block design, or the resumed
// one reopened — and the provenance every record carries, naming this
// apply.
func (o *Operation) newRun(lab *spec.Lab, rs results.Store, lockDigest string, resume *ResumePoint, orderSeed int64,
	planned []results.PlannedCell, design map[string]string) (*results.Run, results.Provenance, error) {
	host, _ := os.Hostname()
	commit, dirty := gitCommit(o.Dir)
	prov := results.Provenance{LabVersion: o.Version, LabFileHash: lab.Hash, GitCommit: commit, GitDirty: dirty, Host: host,
		LockDigest: lockDigest}
	if resume != nil {
		run, err := rs.Reopen(resume.ID)
		prov.Apply = results.ApplyID(time.Now())
		return run, prov, err
	}
	var experiments []string
	for _, e := range lab.Experiments {
		experiments = append(experiments, e.Name)
	}
	run, err := rs.NewRun(results.RunInfo{Lab: lab.Name, LabFileHash: lab.Hash, SpecHash: lab.Hash, LabVersion: o.Version,
		Host: host, Experiments: experiments, OrderSeed: orderSeed, Planned: planned, Design: design})
	if err == nil {
		prov.Apply = run.ID()
	}
	return run, prov, err
}

// PlannedCells is the number of repeats p gives each cell (warm-ups not
// counted), in plan order, for the run to record (results.RunInfo.Planned):
// the highest repeat planned, or for adaptive repeats the minimum that
// always runs. A resumed run keeps the counts of its first apply.
func PlannedCells(p *plan.Plan) []results.PlannedCell {
	if p == nil {
		return nil
	}
	type key struct{ exp, pair, cell string }
	index := map[key]int{}
	var out []results.PlannedCell
	for _, g := range p.Groups {
		for _, r := range g.Runs {
			if r.Warmup {
				continue
			}
			n := r.Repeat
			if r.MinRepeat > 0 {
				n = min(n, r.MinRepeat)
			}
			k := key{r.Experiment, r.Pair, r.CellKey}
			i, ok := index[k]
			if !ok {
				i = len(out)
				index[k] = i
				out = append(out, results.PlannedCell{Experiment: r.Experiment, Pair: r.Pair, CellKey: r.CellKey})
			}
			out[i].Repeats = max(out[i].Repeats, n)
			out[i].Sequential = r.Sequential()
		}
	}
	return out
}

// gitCommit returns the commit of the lab directory's repository and whether
// the work tree has changes; empty when the lab is not in git.
func gitCommit(dir string) (string, bool) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".").Output()
	return strings.TrimSpace(string(out)), len(strings.TrimSpace(string(st))) > 0
}
