package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/lab-bench/lab/engine"
	"github.com/lab-bench/lab/lockfile"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
	"github.com/lab-bench/lab/spec"
)

// applyFlags are apply's flags.
type applyFlags struct {
	vars                  varFlags
	auto, keep, json, lck bool
	parallelism           int
	saved                 *plan.Plan // PLANFILE, when given
	only                  onlyFlags
	resume                string // -resume RUN
}

func parseApplyFlags(g *globals, args []string) (*applyFlags, error) {
	fs := newFlags(g, "apply", "apply [-auto-approve] [-keep] [-locked] [-parallelism N] [-json] [-only key=value,…] [-resume RUN] [-lock-timeout D] [-var k=v] [-var-file F] [PLANFILE]")
	f := &applyFlags{}
	f.vars.register(fs)
	f.only.register(fs)
	registerLockTimeout(g, fs)
	fs.StringVar(&f.resume, "resume", "", "fill in the runs that `RUN` (an id, latest or previous) has no result for (missing or failed), in the same results directory")
	fs.BoolVar(&f.auto, "auto-approve", false, "skip the interactive approval of the plan")
	fs.BoolVar(&f.keep, "keep", false, "leave the machines in place after the runs (lab destroy removes them)")
	fs.IntVar(&f.parallelism, "parallelism", engine.DefaultParallelism, "create and destroy at most `N` machines at once")
	fs.BoolVar(&f.json, "json", false, "print machine-readable events, one JSON object per line")
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
		if len(f.vars.vars)+len(f.vars.files) > 0 {
			return nil, fmt.Errorf("a saved plan carries its own variables: drop -var/-var-file when applying %s", fs.Arg(0))
		}
		f.saved, f.vars = saved, varFlags{vars: saved.Vars, files: saved.VarFiles}
		f.auto = true // a saved plan was already reviewed, as in Terraform
	}
	return f, nil
}

func runApply(g *globals, args []string) error {
	f, err := parseApplyFlags(g, args)
	if err != nil {
		return err
	}
	w, err := openWorkspace(g, f.vars, "apply")
	if err != nil {
		return err
	}
	defer w.release(g)
	defer closeProviders(g, w.providers)
	rstore := resultStore(g)
	sel, err := applySelection(rstore, w.lab, f)
	if err != nil {
		return err
	}
	p, err := applyPlan(g, w, f, sel)
	if errors.Is(err, errNothingToResume) {
		out := g.stdout
		if f.json {
			out = g.stderr // stdout carries events only
		}
		fmt.Fprintf(out, "Run %s has a result for every run selected: nothing to resume.\n", sel.resume.id)
		return nil
	}
	if err != nil || p == nil {
		return err
	}
	lock, lockDigest, err := lockfile.Read(g.dir)
	if err != nil {
		return err
	}
	if f.lck && lock == nil {
		return fmt.Errorf("-locked needs %s, and this lab has none yet: run `lab apply` once without -locked (or `lab init -upgrade` after a run)", lockfile.FileName)
	}
	tctx, tstop := interruptible(sshContext(g))
	err = checkTemplatesBeforeCreate(tctx, p, w.providers, lock, f.lck)
	tstop()
	if err != nil {
		return err
	}
	guard := newLockGuard(lock, f.lck, g.stderr)
	// Signals are caught before run.json says "running", so that from
	// then on an interrupt always ends in Finish (status "interrupted").
	work, teardown, stop := interrupts(sshContext(g), g.stderr)
	defer stop()
	run, prov, err := newRun(g, w.lab, rstore, lockDigest, sel.resume)
	if err != nil {
		return err
	}
	var view engine.View = newJSONView(g.stdout)
	if !f.json {
		hv := newHumanView(g.stdout, isTerminal(g.stdout))
		hv.setETA(newETA(p))
		defer hv.Close()
		view = hv
	}
	eng := &engine.Engine{
		State: w.state, Store: w.store, Providers: w.providers, OS: osDriver, Runner: benchRunner, Results: run, View: view,
		Parallelism: f.parallelism, Keep: f.keep, RunID: run.ID(), Lab: w.lab.Name, Provenance: prov,
		AfterRun: guard.afterRun, HostLock: hostLock(g, w.lab.Name),
		AbandonCommand: func(addr string) string { return destroyCommand(g, f.vars, w.lab, "-abandon="+addr) },
	}
	start := time.Now()
	outcome, applyErr := eng.Apply(work, teardown, p)
	status := results.StatusComplete
	switch {
	case outcome.Interrupted:
		status = results.StatusInterrupted
	case applyErr != nil:
		status = results.StatusFailed
	}
	applyErr = errors.Join(applyErr, run.Finish(status))
	if !f.json {
		printApplySummary(g, rstore, run, outcome, status, time.Since(start), f.keep)
	}
	printTeardownTrouble(g, outcome.Teardown)
	applyErr = errors.Join(applyErr, settleLockFile(g, guard, lock == nil && status == results.StatusComplete, f))
	if applyErr == nil && !outcome.Interrupted && hasExpectations(w.lab) {
		// Teardown is done and the results are written: check the
		// expectations against this run (exit 2 when one fails).
		if !f.json {
			fmt.Fprintln(g.stdout)
		}
		return check(g, w.lab, run.ID(), checkOptions{json: f.json})
	}
	return applyErr
}

// applyPlan is the plan apply carries out — the saved one, checked against
// the state, or a new one — after showing it and asking for approval. nil
// with no error: the user said no.
func applyPlan(g *globals, w *workspace, f *applyFlags, sel selection) (*plan.Plan, error) {
	p := f.saved
	if p != nil {
		if err := p.CheckFresh(w.state, w.lab.Hash); err != nil {
			return nil, err
		}
		if w.state.Serial == 0 {
			// A plan of a lab never applied named its machines after the
			// workspace it saw: this state, not saved yet, is that one.
			w.state.Lineage = p.Lineage
		}
	} else {
		var err error
		if p, err = makePlan(g, w.lab, w.state, f.vars, w.providers, sel); err != nil {
			return nil, err
		}
		ctx, stop := interruptible(sshContext(g))
		err = planNetworkChanges(ctx, p, w.providers)
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
	if !f.auto {
		ok, err := approve(g)
		if err != nil {
			return nil, err
		}
		if !ok {
			fmt.Fprintln(g.stdout, "Apply cancelled.")
			return nil, nil
		}
	}
	return p, nil
}

// applySelection is the runs this apply is limited to (-only, -resume).
func applySelection(rs results.Store, lab *spec.Lab, f *applyFlags) (selection, error) {
	sel := selection{only: f.only}
	if err := f.only.check(lab); err != nil {
		return sel, err
	}
	if f.resume != "" {
		var err error
		if sel.resume, err = loadResume(rs, lab, f.resume); err != nil {
			return sel, err
		}
	}
	return sel, nil
}

// newRun starts the results of this apply — a new run, or the resumed
// one reopened — and the provenance every record carries, naming this
// apply.
func newRun(g *globals, lab *spec.Lab, rs results.Store, lockDigest string, resume *resumePoint) (*results.Run, results.Provenance, error) {
	host, _ := os.Hostname()
	commit, dirty := gitCommit(g.dir)
	prov := results.Provenance{LabVersion: Version(), LabFileHash: lab.Hash, GitCommit: commit, GitDirty: dirty, Host: host,
		LockDigest: lockDigest}
	if resume != nil {
		run, err := rs.Reopen(resume.id)
		prov.Apply = results.ApplyID(time.Now())
		return run, prov, err
	}
	var experiments []string
	for _, e := range lab.Experiments {
		experiments = append(experiments, e.Name)
	}
	run, err := rs.NewRun(results.RunInfo{Lab: lab.Name, LabFileHash: lab.Hash, SpecHash: lab.Hash, LabVersion: Version(),
		Host: host, Experiments: experiments})
	if err == nil {
		prov.Apply = run.ID()
	}
	return run, prov, err
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

// printTeardownTrouble says what a failed teardown left and what to do.
func printTeardownTrouble(g *globals, err error) {
	if err == nil {
		return
	}
	var saveErr *engine.StateSaveError
	if errors.As(err, &saveErr) {
		fmt.Fprintln(g.stderr, "The state could not be saved during teardown (is the disk full?): it may still list objects that are gone. "+
			"Once it can be written, `lab destroy` finds them gone and clears them.")
		return
	}
	fmt.Fprintln(g.stderr, "Some objects could not be removed; they stay in the state. Run `lab destroy` to retry.")
}

// settleLockFile writes the lab's first lock file after a complete apply
// (write is true), or says why a drifted one was kept.
func settleLockFile(g *globals, guard *lockGuard, write bool, f *applyFlags) error {
	switch {
	case write && len(guard.observed.Machines) > 0:
		if _, err := lockfile.Write(g.dir, guard.observed); err != nil {
			return err
		}
		if !f.json {
			fmt.Fprintf(g.stdout, "Wrote %s: the templates, kernels, drivers and tool versions these results depend on. Commit it beside the spec.\n", lockfile.FileName)
		}
	case guard.drifted && !f.lck:
		fmt.Fprintf(g.stderr, "%s was kept: `lab init -upgrade` accepts the new values; `lab apply -locked` refuses to run on drift.\n", lockfile.FileName)
	}
	return nil
}

// approve asks the user to confirm, as Terraform does.
func approve(g *globals) (bool, error) {
	fmt.Fprint(g.stdout, "\nDo you want to perform these actions? Only 'yes' will be accepted: ")
	line, err := bufio.NewReader(g.stdin).ReadString('\n')
	if err != nil && line == "" {
		return false, fmt.Errorf("no answer on standard input (use -auto-approve when running unattended)")
	}
	return strings.TrimSpace(line) == "yes", nil
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
