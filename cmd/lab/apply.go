package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lab-bench/lab/bench"
	labview "github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/plan"
)

// parseApplyFlags parses apply's flags into the operation's arguments;
// asJSON is -json.
func parseApplyFlags(g *globals, args []string) (a operation.ApplyArgs, asJSON bool, err error) {
	fs := newFlags(g, "apply", "apply [-auto-approve] [-input=false] [-keep] [-locked] [-parallelism N] [-runs-at-once N] [-json] [-only key=value,…] [-resume RUN] [-order-seed N] [-lock-timeout D] [-archive URL] [-var k=v] [-var-file F] [PLANFILE]")
	var vars varFlags
	input := true // -input (false: never prompt)
	vars.register(fs)
	registerOnly(fs, &a.Only)
	registerOrderSeed(fs, &a.OrderSeed)
	registerLockTimeout(g, fs)
	fs.StringVar(&a.Resume, "resume", "", "fill in the runs that `RUN` (an id, latest or previous) has no result for (missing or failed), in the same results directory")
	fs.BoolVar(&a.AutoApprove, "auto-approve", false, "skip the interactive approval of the plan")
	fs.BoolVar(&input, "input", true, "ask for approval on standard input; -input=false never asks, so it needs -auto-approve or a saved plan")
	fs.BoolVar(&a.Keep, "keep", false, "leave the machines in place after the runs (lab destroy removes them)")
	a.Parallelism, a.RunsAtOnce = engine.DefaultParallelism, 1
	fs.Var(countFlag{&a.Parallelism}, "parallelism", "create and destroy at most `N` machines at once (≥ 1)")
	fs.Var(countFlag{&a.RunsAtOnce}, "runs-at-once", "run at most `N` runs at once, of pairs whose hosts are provably disjoint (≥ 1; 1: one at a time)")
	fs.BoolVar(&asJSON, "json", false, "print machine-readable events, one JSON object per line")
	fs.Func("archive", "archive the run in `URL` (postgres://…) or a SQLite file, not $LAB_ARCHIVE", func(v string) error { g.env = append([]string{"LAB_ARCHIVE=" + v}, g.env...); return nil })
	fs.BoolVar(&a.Locked, "locked", false, "refuse to run when what the guests report drifts from "+lockfile.FileName)
	if err := parseFlags(fs, args, optionalArg("a saved plan file")); err != nil {
		return a, asJSON, err
	}
	a.Vars = vars.opVars()
	if fs.NArg() == 1 {
		if a.Saved, err = loadSavedPlan(fs.Arg(0), a); err != nil {
			return a, asJSON, err
		}
		a.Vars = operation.Vars{Vars: a.Saved.Vars, Files: a.Saved.VarFiles}
		a.AutoApprove = true // a saved plan was already reviewed, as in Terraform
	}
	return a, asJSON, noInput("apply", input, a.AutoApprove)
}

// loadSavedPlan loads the saved plan file, refusing the flags that would
// change what it carries.
func loadSavedPlan(file string, a operation.ApplyArgs) (*plan.Plan, error) {
	saved, err := plan.Load(file)
	if err != nil {
		return nil, err
	}
	if len(a.Only) > 0 || a.Resume != "" {
		return nil, fmt.Errorf("a saved plan carries its own selection: drop -only/-resume when applying %s", file)
	}
	if a.OrderSeed != 0 {
		return nil, fmt.Errorf("a saved plan carries its own run order: drop -order-seed when applying %s", file)
	}
	if len(a.Vars.Vars)+len(a.Vars.Files) > 0 {
		return nil, fmt.Errorf("a saved plan carries its own variables: drop -var/-var-file when applying %s", file)
	}
	return saved, nil
}

// runApply is `lab apply [PLANFILE]`: one operation call, shown through
// the apply view (operation.Operation.Apply).
func runApply(g *globals, args []string) error {
	a, asJSON, err := parseApplyFlags(g, args)
	if err != nil {
		return err
	}
	return g.op().Apply(context.Background(), withDrivers(a), applyView(g, asJSON))
}

// withDrivers is a with the guest OS drivers, benchmark runners and
// counters lab registers.
func withDrivers(a operation.ApplyArgs) operation.ApplyArgs {
	a.OS, a.Runner = guest.NewOS, bench.NewRunner
	a.Counters = func(os string) guest.Counters { return guest.For(os).Counters }
	return a
}

// applyView is apply's view on g's output.
func applyView(g *globals, asJSON bool) *labview.Apply {
	return &labview.Apply{Stdout: g.stdout, Stderr: g.stderr, Stdin: g.stdin, JSON: asJSON,
		Color: useColor(g, g.stdout), TTY: isTerminal(g.stdout)}
}

// noInput refuses -input=false without -auto-approve before verb does
// anything: lab would have to ask, and may not.
func noInput(verb string, input, auto bool) error {
	if input || auto {
		return nil
	}
	return fmt.Errorf("%s needs approval and -input=false forbids asking for it: add -auto-approve", verb)
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
