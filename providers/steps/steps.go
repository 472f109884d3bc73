// Package steps runs a back end's Create as named steps in order, each
// with an optional undo, as Packer's multistep runs a builder's steps.
//
// What the steps share is the back end's own struct (typed state, where
// Packer has a state bag): a step is a method value over it. Run stops
// at the first step that fails, or before the next step once ctx is done,
// and then undoes the steps that completed, the last first. A step that
// fails part-way accounts for its own half (it knows what it made);
// unlike Packer's Cleanup, an undo runs only when the run fails, never
// after a success.
//
// An undo removes only what its step made in this run; what a back end
// hands to the engine instead (the Instance a failed Create returns, which
// the engine records as pending and teardown deletes) needs no undo, and
// an undo that leaves it alone keeps `lab apply -keep` able to show it.
package steps

import (
	"context"
	"fmt"
	"time"
)

// UndoTimeout bounds the undos of one failed run. They run on a context
// that the run's cancellation does not end (a Ctrl-C is why many of them
// run), so this is what stops an undo that hangs.
const UndoTimeout = time.Minute

// Step is one named step of a create.
type Step struct {
	// Name says what the step does, in the words an error shows: "define
	// domain", "power on".
	Name string
	// Run does the step.
	Run func(ctx context.Context) error
	// Undo, if set, reverses what Run made, once a later step failed or
	// the run was cancelled. It is called only after Run returned nil.
	Undo func(ctx context.Context) error
}

// Error is a failed run: the machine and the step, what went wrong and
// what the undos that followed could not do.
type Error struct {
	Machine string // the machine, as its back end names it to users
	Step    string // the step that failed or, cancelled, the one not begun
	Err     error
	// Undo are the undos that failed, each naming its step.
	Undo []error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s: %v", e.Machine, e.Step, e.Err)
	for _, u := range e.Undo {
		s += fmt.Sprintf(" (and undoing: %v)", u)
	}
	return s
}

// Unwrap gives errors.Is and errors.As the step's error and the undos'.
func (e *Error) Unwrap() []error { return append([]error{e.Err}, e.Undo...) }

// Run runs steps in order for machine. It returns nil when every step
// succeeded, and otherwise an *Error after the undos of the completed
// steps ran, the last first.
func Run(ctx context.Context, machine string, steps []Step) error {
	for i, s := range steps {
		err := ctx.Err()
		if err == nil {
			err = s.Run(ctx)
		}
		if err != nil {
			return &Error{Machine: machine, Step: s.Name, Err: err, Undo: undo(ctx, steps[:i])}
		}
	}
	return nil
}

// undo runs done's undos, the last first, on a context ctx's
// cancellation does not end, and returns the errors of those that failed.
func undo(ctx context.Context, done []Step) []error {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), UndoTimeout)
	defer cancel()
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		s := done[i]
		if s.Undo == nil {
			continue
		}
		if err := s.Undo(uctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
		}
	}
	return errs
}
