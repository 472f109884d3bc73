package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/engine"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/spec"
	"github.com/lab-bench/lab/state"
)

func runDestroy(g *globals, args []string) error {
	fs := newFlags(g, "destroy", "destroy [-auto-approve] [-orphans [-workspace ID]] [-abandon ADDRESS] [-json] [-lock-timeout D]")
	var v varFlags
	v.register(fs)
	auto := fs.Bool("auto-approve", false, "skip the interactive approval")
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
	if *workspace != "" && !*orphans {
		return fmt.Errorf("-workspace names the workspace whose orphans -orphans removes: add -orphans")
	}
	if *workspace != "" && !validWorkspaceID(*workspace) {
		return fmt.Errorf("-workspace %q is not a workspace id: name exactly one workspace (letters and digits, as a \"Left alone\" line of `lab destroy -orphans` prints it); patterns such as * are refused, since they would take other directories' live machines", *workspace)
	}
	w, err := openWorkspace(g, v, "destroy")
	if err != nil {
		var r reported
		if !errors.As(err, &r) {
			return err
		}
		if *orphans {
			return orphansNeedSpec(g, err)
		}
		// The spec does not load: what lab created is in the state, and a
		// broken spec must not leave machines running.
		fmt.Fprintln(g.stderr, "The spec does not load (see above): destroying what the state lists, with each provider's defaults.")
		if w, err = stateOnlyWorkspace(g, v); err != nil {
			return err
		}
	}
	defer w.release(g)
	provs, store, st := w.providers, w.store, w.state
	defer closeProviders(g, provs)
	owner := st.Owner(st.LabID)
	if *workspace != "" {
		owner.Workspace = *workspace
	}
	if err := checkAbandon(st, provs, abandon); err != nil {
		return err
	}
	if len(st.Resources) == 0 && !*orphans {
		fmt.Fprintln(g.stdout, "Nothing to destroy: the state lists no objects. (`lab destroy -orphans` also looks for objects the state lost.)")
		return nil
	}
	if !*asJSON {
		fmt.Fprintf(g.stdout, "lab %q (workspace %s) will destroy:\n\n", owner.Lab, owner.Workspace)
		for i := len(st.Resources) - 1; i >= 0; i-- {
			r := st.Resources[i]
			fmt.Fprintf(g.stdout, "  - %-7s %s  (%s, %s)\n", r.Kind, r.Address, r.Name, r.Status)
		}
		if *orphans {
			fmt.Fprintf(g.stdout, "  and every object tagged as lab %q, workspace %s, that the state does not list\n", owner.Lab, owner.Workspace)
		}
	}
	if !*auto {
		if ok, err := approve(g); err != nil || !ok {
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, "Destroy cancelled.")
			return nil
		}
	}
	var view engine.View
	if *asJSON {
		view = newJSONView(g.stdout)
	} else {
		hv := newHumanView(g.stdout, false)
		defer hv.Close()
		view = hv
	}
	eng := &engine.Engine{State: st, Store: store, Providers: provs, OS: osDriver, View: view, Abandon: abandon,
		AbandonCommand: func(addr string) string { return destroyCommand(g, v, w.lab, "-abandon="+addr) }}
	_, teardown, stop := interrupts(sshContext(g), g.stderr)
	defer stop()
	if err := eng.Destroy(teardown, owner, *orphans); err != nil {
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
	var se specError
	if errors.As(err, &se) && se.first != "" {
		why = "the spec does not load: " + strings.TrimSuffix(se.first, ".") + "."
	}
	msg := "destroy -orphans asks every back end the spec names for this lab's objects, and " + why +
		" Nothing was destroyed; fix that and run `lab destroy -orphans` again."
	if n := stateObjects(g); n > 0 {
		msg += fmt.Sprintf(" (`lab destroy` without -orphans destroys the %d object(s) the state lists, from the state alone.)", n)
	}
	fmt.Fprintln(g.stderr, "Error: "+msg)
	return reported{exitError}
}

// stateObjects is how many objects the lab directory's state lists (0 when
// it cannot be read: the refusal does not depend on it).
func stateObjects(g *globals) int {
	st, err := state.Store{Dir: stateDir(g)}.Load()
	if err != nil {
		return 0
	}
	return len(st.Resources)
}

// reportOtherWorkspaces tells which other workspaces of the lab still own
// objects on the back ends: left alone, since they may be another
// checkout's live machines, but named so a lost one can be swept. Every
// workspace id printed is one an object's own tag names; a tag whose
// workspace is not a plain id (a hand-made "ws=*") is reported without a
// command, so every command printed is safe as printed.
func reportOtherWorkspaces(ctx context.Context, g *globals, provs map[string]providers.Provider, owner providers.Owner) {
	count := map[string]int{}
	for _, p := range provs {
		found, err := p.List(ctx, providers.Owner{Lab: owner.Lab, Workspace: providers.AnyWorkspace})
		if err != nil {
			continue
		}
		for _, in := range found {
			if in.Owner.Lab == owner.Lab && in.Owner.Workspace != "" && in.Owner.Workspace != owner.Workspace {
				count[in.Owner.Workspace]++
			}
		}
	}
	var ws []string
	for w := range count {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	for _, w := range ws {
		if !validWorkspaceID(w) {
			fmt.Fprintf(g.stderr, "Left alone: %d object(s) of lab %q tagged with workspace %q, which is not a workspace id lab makes: "+
				"lab suggests no command for them; remove them by hand if they are leftovers.\n", count[w], owner.Lab, w)
			continue
		}
		fmt.Fprintf(g.stderr, "Left alone: %d object(s) of lab %q in workspace %s, another lab directory's. "+
			"If that directory or its state is gone, `lab destroy -orphans -workspace %s` removes them.\n", count[w], owner.Lab, w, w)
	}
}

// validWorkspaceID reports whether s can be a workspace id: letters and
// digits only (lab makes them from a state's lineage, see
// state.Workspace), so never a pattern and never anything a shell would
// read differently from what is printed.
func validWorkspaceID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// stateOnlyWorkspace is a workspace built from the state alone: the lab id
// it recorded, and each provider it names configured with an empty block.
// Providers that need their block (a vCenter URL) cannot be had this way:
// the error says to fix the spec.
func stateOnlyWorkspace(g *globals, v varFlags) (*workspace, error) {
	store := stateStore(g)
	unlock, err := lockState(g, store, "", "destroy")
	if err != nil {
		return nil, err
	}
	st, err := store.Load()
	if err == nil && st.LabID != "" {
		// A copy's state lists the original's objects, spec or no spec.
		err = claim(g, st, st.LabID)
	}
	if err != nil {
		releaseLock(g, unlock)
		return nil, err
	}
	provs := map[string]providers.Provider{}
	var problems []string
	for _, r := range st.Resources {
		if _, ok := provs[r.ProviderKey]; ok {
			continue
		}
		typ, _, _ := strings.Cut(r.ProviderKey, ".")
		p, err := providers.New(typ)
		if err == nil {
			if d := p.Configure(context.Background(), hcl.EmptyBody()); d.HasErrors() {
				err = d
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", r.ProviderKey, err))
			continue
		}
		provs[r.ProviderKey] = p
	}
	if len(problems) > 0 {
		releaseLock(g, unlock)
		return nil, fmt.Errorf("cannot destroy without the spec: %s; fix the spec so its provider blocks load", strings.Join(problems, "; "))
	}
	if st.LabID == "" && len(st.Resources) > 0 {
		releaseLock(g, unlock)
		return nil, fmt.Errorf("the state does not record its lab (written by an older lab): fix the spec to destroy")
	}
	return &workspace{providers: provs, store: store, state: st, unlock: unlock}, nil
}

// checkAbandon refuses a -abandon address that is not a borrowed machine
// in the state: only a machine lab does not own can be let go without
// lab logging in (a machine lab created is deleted through its back end).
func checkAbandon(st *state.State, provs map[string]providers.Provider, abandon map[string]bool) error {
	for _, addr := range slices.Sorted(maps.Keys(abandon)) {
		r, ok := st.Find(addr)
		if !ok {
			return fmt.Errorf("-abandon %s: the state lists no such object (lab state list shows what it lists)", addr)
		}
		p := provs[r.ProviderKey]
		if r.Kind != "machine" || p == nil || !p.Capabilities().Borrowed {
			return fmt.Errorf("-abandon %s: not a borrowed machine (a hosts machine); lab destroy deletes what lab created", addr)
		}
	}
	return nil
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
