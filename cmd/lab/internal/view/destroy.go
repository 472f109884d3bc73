package view

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// Destroy is destroy's view (operation.DestroyView) for people, or with
// JSON for machines (stdout carries the engine's events only).
type Destroy struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	JSON           bool
}

// SpecBroken says on stderr that the state alone is destroyed.
func (v Destroy) SpecBroken() {
	fmt.Fprintln(v.Stderr, "The spec does not load (see above): destroying what the state lists, with each provider's defaults.")
}

// Nothing says that the state lists nothing.
func (v Destroy) Nothing() {
	fmt.Fprintln(v.Stdout, "Nothing to destroy: the state lists no objects. (`lab destroy -orphans` also looks for objects the state lost.)")
}

// DestroyPlan lists what will be destroyed (nothing with JSON).
func (v Destroy) DestroyPlan(st *state.State, owner machine.Owner, orphans bool) {
	if !v.JSON {
		DestroyPlan(v.Stdout, st, owner, orphans)
	}
}

// Approve asks for approval on Stdin.
func (v Destroy) Approve() error { return Approve(v.Stdout, v.Stdin, "Destroy") }

// Events is the JSON event stream or the human view.
func (v Destroy) Events() (engine.View, func()) {
	if v.JSON {
		return NewJSON(v.Stdout), func() {}
	}
	hv := NewHuman(v.Stdout, false)
	return hv, hv.Close
}

// OtherWorkspaces tells which other workspaces of the lab still own
// objects on the back ends: left alone, since they may be another
// checkout's live machines, but named so a lost one can be swept. Every
// workspace id printed is one an object's own tag names; a tag whose
// workspace is not a plain id (a hand-made "ws=*") is reported without a
// command, so every command printed is safe as printed.
func (v Destroy) OtherWorkspaces(lab string, count map[string]int) {
	for _, w := range slices.Sorted(maps.Keys(count)) {
		if !operation.ValidWorkspaceID(w) {
			fmt.Fprintf(v.Stderr, "Left alone: %d object(s) of lab %q tagged with workspace %q, which is not a workspace id lab makes: "+
				"lab suggests no command for them; remove them by hand if they are leftovers.\n", count[w], lab, w)
			continue
		}
		fmt.Fprintf(v.Stderr, "Left alone: %d object(s) of lab %q in workspace %s, another lab directory's. "+
			"If that directory or its state is gone, `lab destroy -orphans -workspace %s` removes them.\n", count[w], lab, w, w)
	}
}

// Complete says that destroy is done (nothing with JSON).
func (v Destroy) Complete() {
	if !v.JSON {
		fmt.Fprintln(v.Stdout, "Destroy complete.")
	}
}
