package steps

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// recorder builds steps that log their runs and undos in order.
type recorder struct {
	log []string
	// fail is the step whose Run fails; undoFail the one whose Undo does.
	fail, undoFail string
	// cancel, when set, is called by the step named cancelAt after it ran.
	cancel   context.CancelFunc
	cancelAt string
	// undoCtx is the error of the context the undos were given.
	undoCtx error
}

var errStep = errors.New("boom")

func (r *recorder) step(name string, undoable bool) Step {
	s := Step{Name: name, Run: func(ctx context.Context) error {
		r.log = append(r.log, "run "+name)
		if name == r.fail {
			return errStep
		}
		if name == r.cancelAt {
			r.cancel()
		}
		return nil
	}}
	if undoable {
		s.Undo = func(ctx context.Context) error {
			r.log = append(r.log, "undo "+name)
			r.undoCtx = ctx.Err()
			if name == r.undoFail {
				return errors.New("stuck")
			}
			return nil
		}
	}
	return s
}

func (r *recorder) steps() []Step {
	return []Step{r.step("a", true), r.step("b", false), r.step("c", true), r.step("d", true)}
}

// TestRun: steps run in order; when one fails, or the context ends
// between two, the steps that completed are undone, the last first, and
// the error names the machine and the step.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name               string
		fail, undo, cancel string
		want               string
		wantErr            string // "" for success
	}{
		{name: "all succeed: nothing undone", want: "run a, run b, run c, run d"},
		{name: "first fails: nothing to undo", fail: "a", want: "run a", wantErr: "m1: a: boom"},
		{name: "third fails: the first undone (the second has no undo)", fail: "c",
			want: "run a, run b, run c, undo a", wantErr: "m1: c: boom"},
		{name: "last fails: the rest undone, last first", fail: "d",
			want: "run a, run b, run c, run d, undo c, undo a", wantErr: "m1: d: boom"},
		{name: "an undo that fails does not stop the others", fail: "d", undo: "c",
			want: "run a, run b, run c, run d, undo c, undo a", wantErr: "m1: d: boom (and undoing: c: stuck)"},
		{name: "cancelled after the second: the third never runs, the first undone", cancel: "b",
			want: "run a, run b, undo a", wantErr: "m1: c: context canceled"},
		{name: "cancelled after the last: the run succeeded", cancel: "d", want: "run a, run b, run c, run d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &recorder{fail: tc.fail, undoFail: tc.undo, cancel: cancel, cancelAt: tc.cancel}
			err := Run(ctx, "m1", r.steps())
			if got := strings.Join(r.log, ", "); got != tc.want {
				t.Errorf("ran %q, want %q", got, tc.want)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("Run: %v, want %q", err, tc.wantErr)
			}
			var se *Error
			if !errors.As(err, &se) || se.Machine != "m1" {
				t.Errorf("Run: %#v, want a *steps.Error for m1", err)
			}
			if tc.fail != "" && !errors.Is(err, errStep) {
				t.Errorf("Run: %v does not wrap the step's error", err)
			}
			if tc.cancel != "" && !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v does not wrap context.Canceled", err)
			}
			if r.undoCtx != nil {
				t.Errorf("an undo got a context already done (%v): after a Ctrl-C it could not undo", r.undoCtx)
			}
		})
	}
}

// A run given a context already done runs no step and undoes none.
func TestRunCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := &recorder{}
	err := Run(ctx, "m1", r.steps())
	if len(r.log) != 0 {
		t.Errorf("ran %v, want nothing", r.log)
	}
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "m1: a: ") {
		t.Errorf("Run: %v, want m1: a: context canceled", err)
	}
}
