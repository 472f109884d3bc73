package operation

import (
	"context"
	"errors"
	"time"

	labssh "github.com/lab-bench/lab/guest/ssh"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// ApplyArgs are apply's arguments, parsed from its flags by the CLI.
type ApplyArgs struct {
	Vars Vars
	// Saved is a saved plan (PLANFILE) to carry out; nil: make a new one
	// for Only, Resume and OrderSeed.
	Saved     *plan.Plan
	Only      Only
	Resume    string // -resume RUN
	OrderSeed int64
	// AutoApprove skips asking (a saved plan was reviewed already).
	AutoApprove bool
	// Locked is -locked: refuse to run on drift from the lock file.
	Locked      bool
	Parallelism int
	// RunsAtOnce bounds the runs in flight (engine.Engine.RunsAtOnce).
	RunsAtOnce int
	Keep       bool
	// SayReaches has the view say where the providers connect before
	// approval (reproduce: the spec is someone else's).
	SayReaches bool
	// OS and Runner map a template's os and a benchmark's tool to their
	// drivers; Counters maps an os to how it reads the counters recorded
	// around each run (nil: none).
	OS       func(name string) (guest.OS, error)
	Runner   func(tool string) (bench.Runner, error)
	Counters func(osName string) guest.Counters
}

// ApplySummary is how an apply ended, for the view's last words: the
// run's records (LoadErr when they could not be read back), the engine's
// outcome and the run's status.
type ApplySummary struct {
	Run     *results.Run
	Info    results.RunInfo
	Records []results.Record
	LoadErr error
	Outcome engine.Outcome
	Status  string
	Took    time.Duration
	Keep    bool
}

// ApplyView is how apply shows what it does: the plan, the question, the
// engine's events, the summary, the lock file and the expectations'
// verdicts. The CLI implements it for people and for -json.
type ApplyView interface {
	// Plan shows the plan before approval.
	Plan(p *plan.Plan) error
	// Reaches shows where the providers connect (ReachesLine).
	Reaches(line string)
	// Approve asks for approval; an error (declined) ends the apply.
	Approve() error
	// NothingToResume says that the -resume run lacks no result.
	NothingToResume(runID string)
	// Events is the view of the engine's events for plan p, and what
	// closes it once apply is done.
	Events(p *plan.Plan) (engine.View, func())
	// Summary shows how the apply ended.
	Summary(s ApplySummary)
	// TeardownTrouble says what a failed teardown (err) left.
	TeardownTrouble(err error)
	// LockFile says that the lab's first lock file was written (wrote) or
	// that a drifted one was kept (kept).
	LockFile(wrote, kept bool)
	// Checks shows the expectations' verdicts on run runID.
	Checks(runID string, outs []verdicts.Outcome) error
}

// ErrExpectFailed is an expectation (or a reproduction) that failed: its
// verdicts were shown already; the CLI exits 2.
var ErrExpectFailed = errors.New("an expectation failed")

// Apply is `lab apply`: it opens the workspace, plans (or checks the saved
// plan), asks for approval, has the engine carry out the plan — the first
// interrupt stops the runs, the second abandons the teardown — records the
// run, writes the lab's first lock file and checks the expectations
// against the run (ErrExpectFailed when one fails).
func (o *Operation) Apply(ctx context.Context, args ApplyArgs, view ApplyView) error {
	ctx = labssh.WithPinFile(ctx, o.PinFile())
	w, err := o.Open(args.Vars, "apply")
	if err != nil {
		return err
	}
	defer w.Release()
	defer o.CloseProviders(w.Providers)
	sel, err := ApplySelection(o.ResultStore(), w.Lab, args.Only, args.Resume)
	if err != nil {
		return err
	}
	sel.OrderSeed = args.OrderSeed
	p, err := w.approvedPlan(ctx, args, sel, view)
	if errors.Is(err, ErrNothingToResume) {
		view.NothingToResume(sel.Resume.ID)
		return nil
	}
	if err != nil {
		return err
	}
	tctx, tstop := Interruptible(ctx)
	a, err := w.PrepareApply(tctx, p, args.Locked)
	tstop()
	if err != nil {
		return err
	}
	// Signals are caught before run.json says "running", so that from
	// then on an interrupt always ends in Finish (status "interrupted").
	work, teardown, stop := Interrupts(ctx, o.Stderr)
	defer stop()
	if err := a.Start(sel.Resume); err != nil {
		return err
	}
	events, closeEvents := view.Events(p)
	defer closeEvents()
	return a.run(work, teardown, args, events, view)
}

// approvedPlan is the plan apply carries out — the saved one, checked
// against the state, or a new one — after showing it and asking for
// approval.
func (w *Workspace) approvedPlan(ctx context.Context, args ApplyArgs, sel Selection, view ApplyView) (*plan.Plan, error) {
	p := args.Saved
	if p != nil {
		if err := w.CheckSaved(p); err != nil {
			return nil, err
		}
	} else {
		var err error
		if p, err = w.op.MakePlan(w.Lab, w.State, args.Vars, w.Providers, sel); err != nil {
			return nil, err
		}
		pctx, stop := Interruptible(ctx)
		err = PlanNetworkChanges(pctx, p, w.Providers)
		stop()
		if err != nil {
			return nil, err
		}
	}
	if err := view.Plan(p); err != nil {
		return nil, err
	}
	if args.SayReaches {
		view.Reaches(ReachesLine(w.Lab, w.Providers))
	}
	if !args.AutoApprove && args.Saved == nil {
		if err := view.Approve(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// run executes the started apply, shows how it ended, settles the lock
// file and, after a clean apply, checks the expectations.
func (a *Apply) run(work, teardown context.Context, args ApplyArgs, events engine.View, view ApplyView) error {
	w := a.w
	start := time.Now()
	outcome, status, applyErr := a.Execute(work, teardown, ApplyOptions{
		Parallelism: args.Parallelism, RunsAtOnce: args.RunsAtOnce, Keep: args.Keep, View: events,
		OS: args.OS, Runner: args.Runner, Counters: args.Counters,
		AbandonCommand: func(addr string) string { return w.op.DestroyCommand(args.Vars, w.Lab, "-abandon="+addr) },
	})
	s := ApplySummary{Run: a.Run, Outcome: outcome, Status: status, Took: time.Since(start), Keep: args.Keep}
	s.Info, s.Records, s.LoadErr = w.op.ResultStore().Load(a.Run.ID())
	view.Summary(s)
	view.TeardownTrouble(outcome.Teardown)
	wrote, err := a.WriteLockFile(status)
	if err == nil && (wrote || a.Guard.Drifted && !args.Locked) {
		view.LockFile(wrote, !wrote)
	}
	applyErr = errors.Join(applyErr, err)
	if applyErr != nil || outcome.Interrupted || !HasExpectations(w.Lab) {
		return applyErr
	}
	// Teardown is done and the results are written: check the
	// expectations against this run (ErrExpectFailed when one fails).
	exps, err := Expectations(w.Lab)
	if err != nil {
		return err
	}
	runID, outs, err := w.op.checkRuns(w.Lab, exps, []string{a.Run.ID()}, false)
	if err != nil {
		return err
	}
	if err := view.Checks(runID, outs); err != nil {
		return err
	}
	if ChecksFail(outs, false) {
		return ErrExpectFailed
	}
	return nil
}

// ChecksFail reports whether outs fail a check: a fail or a result not
// reproduced does (not comparable never does: the run is not on the
// post's hardware, only shapes were judged); with strict, any verdict
// but pass.
func ChecksFail(outs []verdicts.Outcome, strict bool) bool {
	for _, o := range outs {
		if o.Verdict.Failing() || strict && !o.Verdict.Settled() {
			return true
		}
	}
	return false
}
