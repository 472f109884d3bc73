package operation

import (
	"context"
	"errors"
	"fmt"
	"strings"

	labssh "github.com/lab-bench/lab/guest/ssh"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// DestroyArgs are destroy's arguments, parsed (and checked: -workspace
// only with -orphans, and a valid id) from its flags by the CLI.
type DestroyArgs struct {
	Vars        Vars
	AutoApprove bool
	// Orphans also removes the objects tagged as this lab's and
	// workspace's (Workspace, when set) that the state does not list.
	Orphans   bool
	Workspace string
	// Abandon are the borrowed machines let go without logging in.
	Abandon map[string]bool
	// OS maps a template's os to its driver.
	OS func(name string) (guest.OS, error)
}

// DestroyView is how destroy shows what it does.
type DestroyView interface {
	// SpecBroken says that the spec does not load, so what the state
	// lists is destroyed with each provider's defaults.
	SpecBroken()
	// Nothing says that the state lists nothing to destroy.
	Nothing()
	// DestroyPlan shows what will be destroyed.
	DestroyPlan(st *state.State, owner machine.Owner, orphans bool)
	// Approve asks for approval; an error (declined) ends the destroy.
	Approve() error
	// Events is the view of the engine's events, and what closes it.
	Events() (engine.View, func())
	// OtherWorkspaces names the other workspaces of lab that still own
	// objects on the back ends (count by workspace id), left alone.
	OtherWorkspaces(lab string, count map[string]int)
	// Complete says that destroy is done.
	Complete()
}

// Destroy is `lab destroy`: it removes what the state lists (and with
// Orphans what the back ends hold of this lab's workspace), after showing
// it and asking. A spec that does not load still destroys what the state
// lists, from the state alone; -orphans then refuses (ErrOrphansNeedSpec).
func (o *Operation) Destroy(ctx context.Context, args DestroyArgs, view DestroyView) error {
	ctx = labssh.WithPinFile(ctx, o.PinFile())
	w, err := o.Open(args.Vars, "destroy")
	if err != nil {
		if !errors.Is(err, ErrReported) {
			return err
		}
		if args.Orphans {
			return o.orphansNeedSpec(err)
		}
		// The spec does not load: what lab created is in the state, and a
		// broken spec must not leave machines running.
		view.SpecBroken()
		if w, err = o.StateOnlyWorkspace(); err != nil {
			return err
		}
	}
	defer w.Release()
	provs, st := w.Providers, w.State
	defer o.CloseProviders(provs)
	owner := st.Owner(st.LabID)
	if args.Workspace != "" {
		owner.Workspace = args.Workspace
	}
	if err := CheckAbandon(st, provs, args.Abandon); err != nil {
		return err
	}
	if len(st.Resources) == 0 && !args.Orphans {
		view.Nothing()
		return nil
	}
	view.DestroyPlan(st, owner, args.Orphans)
	if !args.AutoApprove {
		if err := view.Approve(); err != nil {
			return err
		}
	}
	events, closeEvents := view.Events()
	defer closeEvents()
	_, teardown, stop := Interrupts(ctx, o.Stderr)
	defer stop()
	if err := w.Destroy(teardown, owner, args.Orphans, DestroyOptions{View: events, OS: args.OS, Abandon: args.Abandon,
		AbandonCommand: func(addr string) string { return o.DestroyCommand(args.Vars, w.Lab, "-abandon="+addr) }}); err != nil {
		return err
	}
	if args.Orphans {
		view.OtherWorkspaces(owner.Lab, OtherWorkspaces(teardown, provs, owner))
	}
	view.Complete()
	return nil
}

// orphansNeedSpec refuses `destroy -orphans` when the spec does not load
// (issue 20, section 6; err is why). Orphans are found by asking every
// back end the spec names for objects carrying this lab's and workspace's
// tag; without the spec lab knows at most the back ends the state names,
// so a sweep would miss the others and still say "Destroy complete."
// Nothing is destroyed: the message names the first error and what plain
// `lab destroy` can do from the state alone.
func (o *Operation) orphansNeedSpec(err error) error {
	why := "the spec does not load (see above)."
	var se SpecError
	if errors.As(err, &se) && se.First != "" {
		why = "the spec does not load: " + strings.TrimSuffix(se.First, ".") + "."
	}
	msg := "destroy -orphans asks every back end the spec names for this lab's objects, and " + why +
		" Nothing was destroyed; fix that and run `lab destroy -orphans` again."
	if n := o.StateObjects(); n > 0 {
		msg += fmt.Sprintf(" (`lab destroy` without -orphans destroys the %d object(s) the state lists, from the state alone.)", n)
	}
	return errors.New(msg)
}
