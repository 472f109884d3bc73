package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	labview "github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

func runDestroy(g *globals, args []string) error {
	fs := newFlags(g, "destroy", "destroy [-auto-approve] [-input=false] [-orphans [-workspace ID]] [-abandon ADDRESS] [-json] [-lock-timeout D]")
	var v varFlags
	v.register(fs)
	auto := fs.Bool("auto-approve", false, "skip the interactive approval")
	input := fs.Bool("input", true, "ask for approval on standard input; -input=false never asks, so it needs -auto-approve")
	orphans := fs.Bool("orphans", false, "also remove objects tagged as this lab's and this workspace's that the state does not list")
	workspace := fs.String("workspace", "", "with -orphans: sweep the workspace `ID` instead of this directory's (one whose state was lost)")
	asJSON := fs.Bool("json", false, "print machine-readable events, one JSON object per line")
	abandon := map[string]bool{}
	fs.Func("abandon", "let the borrowed machine `ADDRESS` (a hosts machine) go without logging in to restore its settings, which are printed for you to put back (repeatable)",
		func(s string) error { abandon[s] = true; return nil })
	registerLockTimeout(g, fs)
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	if err := noInput("destroy", *input, *auto); err != nil {
		return err
	}
	if *workspace != "" && !*orphans {
		return fmt.Errorf("-workspace names the workspace whose orphans -orphans removes: add -orphans")
	}
	if *workspace != "" && !operation.ValidWorkspaceID(*workspace) {
		return fmt.Errorf("-workspace %q is not a workspace id: name exactly one workspace (letters and digits, as a \"Left alone\" line of `lab destroy -orphans` prints it); patterns such as * are refused, since they would take other directories' live machines", *workspace)
	}
	op := g.op()
	w, err := op.Open(v.opVars(), "destroy")
	if err != nil {
		if !errors.Is(err, operation.ErrReported) {
			return err
		}
		if *orphans {
			return orphansNeedSpec(g, err)
		}
		// The spec does not load: what lab created is in the state, and a
		// broken spec must not leave machines running.
		fmt.Fprintln(g.stderr, "The spec does not load (see above): destroying what the state lists, with each provider's defaults.")
		if w, err = op.StateOnlyWorkspace(); err != nil {
			return err
		}
	}
	defer w.Release()
	provs, st := w.Providers, w.State
	defer op.CloseProviders(provs)
	owner := st.Owner(st.LabID)
	if *workspace != "" {
		owner.Workspace = *workspace
	}
	if err := operation.CheckAbandon(st, provs, abandon); err != nil {
		return err
	}
	if len(st.Resources) == 0 && !*orphans {
		fmt.Fprintln(g.stdout, "Nothing to destroy: the state lists no objects. (`lab destroy -orphans` also looks for objects the state lost.)")
		return nil
	}
	if !*asJSON {
		labview.DestroyPlan(g.stdout, st, owner, *orphans)
	}
	if !*auto {
		if err := approve(g, "Destroy"); err != nil {
			return err
		}
	}
	var view engine.View
	if *asJSON {
		view = labview.NewJSON(g.stdout)
	} else {
		hv := labview.NewHuman(g.stdout, false)
		defer hv.Close()
		view = hv
	}
	_, teardown, stop := operation.Interrupts(op.SSHContext(), g.stderr)
	defer stop()
	if err := w.Destroy(teardown, owner, *orphans, operation.DestroyOptions{View: view, OS: guest.NewOS, Abandon: abandon,
		AbandonCommand: func(addr string) string { return destroyCommand(g, v, w.Lab, "-abandon="+addr) }}); err != nil {
		return err
	}
	if *orphans {
		reportOtherWorkspaces(teardown, g, provs, owner)
	}
	if !*asJSON {
		fmt.Fprintln(g.stdout, "Destroy complete.")
	}
	return nil
}

// orphansNeedSpec refuses `destroy -orphans` when the spec does not load
// (issue 20, section 6). Orphans are found by asking every back end the
// spec names for objects carrying this lab's and workspace's tag; without
// the spec lab knows at most the back ends the state names, so a sweep
// would miss the others and still say "Destroy complete." Nothing is
// destroyed: the message names the first error and what plain `lab
// destroy` can do from the state alone.
func orphansNeedSpec(g *globals, err error) error {
	why := "the spec does not load (see above)."
	var se operation.SpecError
	if errors.As(err, &se) && se.First != "" {
		why = "the spec does not load: " + strings.TrimSuffix(se.First, ".") + "."
	}
	msg := "destroy -orphans asks every back end the spec names for this lab's objects, and " + why +
		" Nothing was destroyed; fix that and run `lab destroy -orphans` again."
	if n := g.op().StateObjects(); n > 0 {
		msg += fmt.Sprintf(" (`lab destroy` without -orphans destroys the %d object(s) the state lists, from the state alone.)", n)
	}
	fmt.Fprintln(g.stderr, "Error: "+msg)
	return reported{exitError}
}

// reportOtherWorkspaces tells which other workspaces of the lab still own
// objects on the back ends: left alone, since they may be another
// checkout's live machines, but named so a lost one can be swept. Every
// workspace id printed is one an object's own tag names; a tag whose
// workspace is not a plain id (a hand-made "ws=*") is reported without a
// command, so every command printed is safe as printed.
func reportOtherWorkspaces(ctx context.Context, g *globals, provs map[string]providers.Provider, owner machine.Owner) {
	count := operation.OtherWorkspaces(ctx, provs, owner)
	for _, w := range slices.Sorted(maps.Keys(count)) {
		if !operation.ValidWorkspaceID(w) {
			fmt.Fprintf(g.stderr, "Left alone: %d object(s) of lab %q tagged with workspace %q, which is not a workspace id lab makes: "+
				"lab suggests no command for them; remove them by hand if they are leftovers.\n", count[w], owner.Lab, w)
			continue
		}
		fmt.Fprintf(g.stderr, "Left alone: %d object(s) of lab %q in workspace %s, another lab directory's. "+
			"If that directory or its state is gone, `lab destroy -orphans -workspace %s` removes them.\n", count[w], owner.Lab, w, w)
	}
}

// destroyCommand is the `lab destroy` command line lab suggests: this
// invocation's lab directory (-chdir), -var-file and -var options, and
// extra. Every word is shell-quoted; a sensitive variable given with -var
// is left out (lab never prints its value: give it as LAB_VAR_<name>).
func destroyCommand(g *globals, v varFlags, lab *spec.Lab, extra ...string) string {
	argv := []string{"lab"}
	if g.dir != "." {
		argv = append(argv, "-chdir="+g.dir)
	}
	argv = append(argv, "destroy")
	for _, f := range v.files {
		argv = append(argv, "-var-file="+f)
	}
	for _, kv := range v.vars {
		if name, _, _ := strings.Cut(kv, "="); lab != nil && lab.Sensitive[strings.TrimSpace(name)] {
			continue
		}
		argv = append(argv, "-var="+kv)
	}
	return guest.ShellJoin(append(argv, extra...))
}
