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
)

func runApply(g *globals, args []string) error {
	fs := newFlags(g, "apply", "apply [-auto-approve] [-keep] [-parallelism N] [-json] [-var k=v] [-var-file F] [PLANFILE]")
	var v varFlags
	v.register(fs)
	auto := fs.Bool("auto-approve", false, "skip the interactive approval of the plan")
	keep := fs.Bool("keep", false, "leave the machines in place after the runs (lab destroy removes them)")
	par := fs.Int("parallelism", engine.DefaultParallelism, "create and destroy at most `N` machines at once")
	asJSON := fs.Bool("json", false, "print machine-readable events, one JSON object per line")
	locked := fs.Bool("locked", false, "refuse to run when what the guests report drifts from "+lockfile.FileName)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var saved *plan.Plan
	if fs.NArg() > 1 {
		return fmt.Errorf("apply takes at most one argument, a saved plan file")
	}
	if fs.NArg() == 1 {
		var err error
		if saved, err = plan.Load(fs.Arg(0)); err != nil {
			return err
		}
		if len(v.vars)+len(v.files) > 0 {
			return fmt.Errorf("a saved plan carries its own variables: drop -var/-var-file when applying %s", fs.Arg(0))
		}
		v = varFlags{vars: saved.Vars, files: saved.VarFiles}
		*auto = true // a saved plan was already reviewed, as in Terraform
	}
	w, err := openWorkspace(g, v, "apply")
	if err != nil {
		return err
	}
	defer w.release(g)
	lab, provs, store, st := w.lab, w.providers, w.store, w.state
	defer closeProviders(g, provs)
	p := saved
	if p != nil {
		if err := p.CheckFresh(st, lab.Hash); err != nil {
			return err
		}
		if st.Serial == 0 {
			// A plan of a lab never applied named its machines after the
			// workspace it saw: this state, not saved yet, is that one.
			st.Lineage = p.Lineage
		}
	} else {
		if p, err = makePlan(g, lab, st, v, provs); err != nil {
			return err
		}
	}
	if !*asJSON {
		if err := p.Render(g.stdout, plan.RenderOptions{Color: isTerminal(g.stdout)}); err != nil {
			return err
		}
	}
	if !*auto {
		if ok, err := approve(g); err != nil || !ok {
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, "Apply cancelled.")
			return nil
		}
	}

	lock, lockDigest, err := lockfile.Read(g.dir)
	if err != nil {
		return err
	}
	if *locked && lock == nil {
		return fmt.Errorf("-locked needs %s, and this lab has none yet: run `lab apply` once without -locked (or `lab init -upgrade` after a run)", lockfile.FileName)
	}
	guard := newLockGuard(lock, *locked, g.stderr)

	host, _ := os.Hostname()
	commit, dirty := gitCommit(g.dir)
	rstore := results.Store{Dir: resultsDir(g)}
	var experiments []string
	for _, e := range lab.Experiments {
		experiments = append(experiments, e.Name)
	}
	run, err := rstore.NewRun(results.RunInfo{Lab: lab.Name, LabFileHash: lab.Hash, SpecHash: lab.Hash, LabVersion: Version(),
		Host: host, Experiments: experiments})
	if err != nil {
		return err
	}

	var view engine.View
	if *asJSON {
		view = newJSONView(g.stdout)
	} else {
		hv := newHumanView(g.stdout, isTerminal(g.stdout))
		defer hv.Close()
		view = hv
	}
	eng := &engine.Engine{
		State: st, Store: store, Providers: provs, OS: osDriver, Runner: benchRunner, Results: run, View: view,
		Parallelism: *par, Keep: *keep, RunID: run.ID(), Lab: lab.Name,
		Provenance: results.Provenance{LabVersion: Version(), LabFileHash: lab.Hash, GitCommit: commit, GitDirty: dirty, Host: host,
			LockDigest: lockDigest},
		AfterRun: guard.afterRun,
		HostLock: hostLock(g, lab.Name),
	}
	work, teardown, stop := interrupts(g.stderr)
	defer stop()
	start := time.Now()
	outcome, applyErr := eng.Apply(work, teardown, p)
	status := "complete"
	switch {
	case outcome.Interrupted:
		status = "interrupted"
	case applyErr != nil:
		status = "failed"
	}
	if err := run.Finish(status); err != nil {
		applyErr = errors.Join(applyErr, err)
	}
	if !*asJSON {
		if err := printRunTable(g, rstore, run.ID()); err != nil && outcome.Runs > 0 {
			fmt.Fprintf(g.stderr, "Warning: could not render the results: %v\n", err)
		}
		fmt.Fprintf(g.stdout, "\nApply %s in %s: %d runs (%d failed). Results: %s\n", status, time.Since(start).Round(time.Second),
			outcome.Runs, outcome.Failed, run.Dir())
		if *keep {
			fmt.Fprintln(g.stdout, "Machines were kept (-keep); `lab destroy` removes them.")
		}
	}
	if outcome.Teardown != nil {
		var saveErr *engine.StateSaveError
		if errors.As(outcome.Teardown, &saveErr) {
			fmt.Fprintln(g.stderr, "The state could not be saved during teardown (is the disk full?): it may still list objects that are gone. "+
				"Once it can be written, `lab destroy` finds them gone and clears them.")
		} else {
			fmt.Fprintln(g.stderr, "Some objects could not be removed; they stay in the state. Run `lab destroy` to retry.")
		}
	}
	switch {
	case lock == nil && status == "complete" && len(guard.observed.Machines) > 0:
		if _, err := lockfile.Write(g.dir, guard.observed); err != nil {
			applyErr = errors.Join(applyErr, err)
		} else if !*asJSON {
			fmt.Fprintf(g.stdout, "Wrote %s: the templates, kernels, drivers and tool versions these results depend on. Commit it beside the spec.\n", lockfile.FileName)
		}
	case guard.drifted && !*locked:
		fmt.Fprintf(g.stderr, "%s was kept: `lab init -upgrade` accepts the new values; `lab apply -locked` refuses to run on drift.\n", lockfile.FileName)
	}
	if applyErr == nil && !outcome.Interrupted && hasExpectations(lab) {
		// Teardown is done and the results are written: check the
		// expectations against this run (exit 2 when one fails).
		if !*asJSON {
			fmt.Fprintln(g.stdout)
		}
		return check(g, lab, run.ID(), checkOptions{json: *asJSON})
	}
	return applyErr
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
	return report.Render(g.stdout, "table", info, results.Group(recs), report.Options{Color: isTerminal(g.stdout)})
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
