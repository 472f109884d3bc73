package main

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	labview "github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// applyFlags are apply's flags.
type applyFlags struct {
	vars                  varFlags
	auto, keep, json, lck bool
	input                 bool // -input (false: never prompt)
	parallelism, runsAt   int
	saved                 *plan.Plan // PLANFILE, when given
	only                  operation.Only
	resume                string // -resume RUN
	orderSeed             int64  // -order-seed N
}

func parseApplyFlags(g *globals, args []string) (*applyFlags, error) {
	fs := newFlags(g, "apply", "apply [-auto-approve] [-input=false] [-keep] [-locked] [-parallelism N] [-runs-at-once N] [-json] [-only key=value,…] [-resume RUN] [-order-seed N] [-lock-timeout D] [-archive URL] [-var k=v] [-var-file F] [PLANFILE]")
	f := &applyFlags{}
	f.vars.register(fs)
	registerOnly(fs, &f.only)
	registerOrderSeed(fs, &f.orderSeed)
	registerLockTimeout(g, fs)
	fs.StringVar(&f.resume, "resume", "", "fill in the runs that `RUN` (an id, latest or previous) has no result for (missing or failed), in the same results directory")
	fs.BoolVar(&f.auto, "auto-approve", false, "skip the interactive approval of the plan")
	fs.BoolVar(&f.input, "input", true, "ask for approval on standard input; -input=false never asks, so it needs -auto-approve or a saved plan")
	fs.BoolVar(&f.keep, "keep", false, "leave the machines in place after the runs (lab destroy removes them)")
	f.parallelism, f.runsAt = engine.DefaultParallelism, 1
	fs.Var(countFlag{&f.parallelism}, "parallelism", "create and destroy at most `N` machines at once (≥ 1)")
	fs.Var(countFlag{&f.runsAt}, "runs-at-once", "run at most `N` runs at once, of pairs whose hosts are provably disjoint (≥ 1; 1: one at a time)")
	fs.BoolVar(&f.json, "json", false, "print machine-readable events, one JSON object per line")
	fs.Func("archive", "archive the run in `URL` (postgres://…) or a SQLite file, not $LAB_ARCHIVE", func(v string) error { g.env = append([]string{"LAB_ARCHIVE=" + v}, g.env...); return nil })
	fs.BoolVar(&f.lck, "locked", false, "refuse to run when what the guests report drifts from "+lockfile.FileName)
	if err := parseFlags(fs, args, optionalArg("a saved plan file")); err != nil {
		return nil, err
	}
	switch fs.NArg() {
	case 0:
	case 1:
		saved, err := plan.Load(fs.Arg(0))
		if err != nil {
			return nil, err
		}
		if len(f.only) > 0 || f.resume != "" {
			return nil, fmt.Errorf("a saved plan carries its own selection: drop -only/-resume when applying %s", fs.Arg(0))
		}
		if f.orderSeed != 0 {
			return nil, fmt.Errorf("a saved plan carries its own run order: drop -order-seed when applying %s", fs.Arg(0))
		}
		if len(f.vars.vars)+len(f.vars.files) > 0 {
			return nil, fmt.Errorf("a saved plan carries its own variables: drop -var/-var-file when applying %s", fs.Arg(0))
		}
		f.saved, f.vars = saved, varFlags{vars: saved.Vars, files: saved.VarFiles}
		f.auto = true // a saved plan was already reviewed, as in Terraform
	}
	return f, noInput("apply", f.input, f.auto)
}

func runApply(g *globals, args []string) error {
	f, err := parseApplyFlags(g, args)
	if err != nil {
		return err
	}
	op := g.op()
	w, err := op.Open(f.vars.opVars(), "apply")
	if err != nil {
		return err
	}
	defer w.Release()
	defer op.CloseProviders(w.Providers)
	rstore := op.ResultStore()
	sel, err := operation.ApplySelection(rstore, w.Lab, f.only, f.resume)
	if err != nil {
		return err
	}
	sel.OrderSeed = f.orderSeed
	p, err := applyPlan(g, w, f, sel)
	if errors.Is(err, operation.ErrNothingToResume) {
		out := g.stdout
		if f.json {
			out = g.stderr // stdout carries events only
		}
		fmt.Fprintf(out, "Run %s has a result for every run selected: nothing to resume.\n", sel.Resume.ID)
		return nil
	}
	if err != nil || p == nil {
		return err
	}
	tctx, tstop := operation.Interruptible(op.SSHContext())
	a, err := w.PrepareApply(tctx, p, f.lck)
	tstop()
	if err != nil {
		return err
	}
	// Signals are caught before run.json says "running", so that from
	// then on an interrupt always ends in Finish (status "interrupted").
	work, teardown, stop := operation.Interrupts(op.SSHContext(), g.stderr)
	defer stop()
	if err := a.Start(sel.Resume); err != nil {
		return err
	}
	var view engine.View = labview.NewJSON(g.stdout)
	if !f.json {
		hv := labview.NewHuman(g.stdout, isTerminal(g.stdout))
		hv.SetETA(operation.NewETA(p))
		defer hv.Close()
		view = hv
	}
	start := time.Now()
	outcome, status, applyErr := a.Execute(work, teardown, operation.ApplyOptions{
		Parallelism: f.parallelism, RunsAtOnce: f.runsAt, Keep: f.keep, View: view, OS: guest.NewOS, Runner: bench.NewRunner,
		Counters:       func(os string) guest.Counters { return guest.For(os).Counters },
		AbandonCommand: func(addr string) string { return destroyCommand(g, f.vars, w.Lab, "-abandon="+addr) },
	})
	if !f.json {
		printApplySummary(g, rstore, a.Run, outcome, status, time.Since(start), f.keep)
	}
	labview.TeardownTrouble(g.stderr, outcome.Teardown)
	applyErr = errors.Join(applyErr, settleLockFile(g, a, status, f))
	if applyErr == nil && !outcome.Interrupted && operation.HasExpectations(w.Lab) {
		// Teardown is done and the results are written: check the
		// expectations against this run (exit 2 when one fails).
		if !f.json {
			fmt.Fprintln(g.stdout)
		}
		return check(g, w.Lab, a.Run.ID(), checkOptions{json: f.json})
	}
	return applyErr
}

// applyPlan is the plan apply carries out — the saved one, checked against
// the state, or a new one — after showing it and asking for approval.
func applyPlan(g *globals, w *operation.Workspace, f *applyFlags, sel operation.Selection) (*plan.Plan, error) {
	p := f.saved
	if p != nil {
		if err := w.CheckSaved(p); err != nil {
			return nil, err
		}
	} else {
		var err error
		op := g.op()
		if p, err = op.MakePlan(w.Lab, w.State, f.vars.opVars(), w.Providers, sel); err != nil {
			return nil, err
		}
		ctx, stop := operation.Interruptible(op.SSHContext())
		err = operation.PlanNetworkChanges(ctx, p, w.Providers)
		stop()
		if err != nil {
			return nil, err
		}
	}
	if !f.json {
		if err := p.Render(g.stdout, plan.RenderOptions{Color: useColor(g, g.stdout)}); err != nil {
			return nil, err
		}
	}
	if g.sayReaches {
		out := g.stdout
		if f.json {
			out = g.stderr // stdout carries events only
		}
		fmt.Fprint(out, operation.ReachesLine(w.Lab, w.Providers))
	}
	if !f.auto {
		if err := approve(g, "Apply"); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// printApplySummary prints the run's table and one line on how it went.
func printApplySummary(g *globals, rs results.Store, run *results.Run, o engine.Outcome, status string, took time.Duration, keep bool) {
	if err := printRunTable(g, rs, run.ID()); err != nil && o.Runs > 0 {
		fmt.Fprintf(g.stderr, "Warning: could not render the results: %v\n", err)
	}
	skipped := ""
	if o.Skipped > 0 {
		skipped = fmt.Sprintf(", %d repeats not needed", o.Skipped)
	}
	if o.Stopped > 0 {
		skipped += fmt.Sprintf(", %d stopped by the interrupt and not recorded", o.Stopped)
	}
	fmt.Fprintf(g.stdout, "\nApply %s in %s: %d runs (%d failed%s). Results: %s\n", status, took.Round(time.Second), o.Runs, o.Failed, skipped, run.Dir())
	if keep {
		fmt.Fprintln(g.stdout, "Machines were kept (-keep); `lab destroy` removes them.")
	}
}

// settleLockFile writes the lab's first lock file after a complete apply
// (operation.Apply.WriteLockFile), or says why a drifted one was kept.
func settleLockFile(g *globals, a *operation.Apply, status string, f *applyFlags) error {
	wrote, err := a.WriteLockFile(status)
	if err != nil {
		return err
	}
	switch {
	case wrote:
		if !f.json {
			fmt.Fprintf(g.stdout, "Wrote %s: the templates, kernels, drivers and tool versions these results depend on. Commit it beside the spec.\n", lockfile.FileName)
		}
	case a.Guard.Drifted && !f.lck:
		fmt.Fprintf(g.stderr, "%s was kept: `lab init -upgrade` accepts the new values; `lab apply -locked` refuses to run on drift.\n", lockfile.FileName)
	}
	return nil
}

// noInput refuses -input=false without -auto-approve before verb does
// anything: lab would have to ask, and may not.
func noInput(verb string, input, auto bool) error {
	if input || auto {
		return nil
	}
	return fmt.Errorf("%s needs approval and -input=false forbids asking for it: add -auto-approve", verb)
}

// approve asks the user to confirm, as Terraform does: any answer but
// "yes" prints "<what> cancelled." and exits 1 (Terraform's exit status
// for a declined apply or destroy).
func approve(g *globals, what string) error {
	fmt.Fprint(g.stdout, "\nDo you want to perform these actions? Only 'yes' will be accepted: ")
	line, err := bufio.NewReader(g.stdin).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("no answer on standard input (use -auto-approve when running unattended)")
	}
	if strings.TrimSpace(line) != "yes" {
		fmt.Fprintln(g.stdout, what+" cancelled.")
		return reported{exitError}
	}
	return nil
}

func printRunTable(g *globals, rs results.Store, runID string) error {
	info, recs, err := rs.Load(runID)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return nil
	}
	fmt.Fprintln(g.stdout)
	return report.Render(g.stdout, "table", info, results.Group(recs), report.Options{Color: useColor(g, g.stdout)})
}

// countFlag is a flag that counts things done at once (-runs-at-once,
// -parallelism): a whole number ≥ 1. The engine reads 0 as its default,
// so a 0 or a negative count on the command line would otherwise run
// silently as something other than what was asked.
type countFlag struct{ n *int }

func (c countFlag) String() string {
	if c.n == nil {
		return ""
	}
	return strconv.Itoa(*c.n)
}

func (c countFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return errors.New("want a whole number ≥ 1")
	}
	*c.n = n
	return nil
}
