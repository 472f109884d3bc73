package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-multierror"

	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/state"
)

// Outcome summarises an apply.
type Outcome struct {
	Runs        int // runs attempted
	Failed      int // runs that failed
	Teardown    error
	Interrupted bool
}

// ErrRunsFailed is returned when some benchmark runs failed but the apply
// otherwise completed.
var ErrRunsFailed = errors.New("some runs failed")

// Apply executes p. ctx cancels the work (first Ctrl-C); teardownCtx
// cancels the teardown that follows (second Ctrl-C). Unless Keep is set,
// everything in state is torn down at the end, also on error.
func (e *Engine) Apply(ctx, teardownCtx context.Context, p *plan.Plan) (Outcome, error) {
	var out Outcome
	total := len(p.Runs())
	actions := map[string]plan.Action{}
	for _, a := range p.Actions {
		actions[a.Address] = a
	}
	err := e.apply(ctx, p, actions, total, &out)
	if ctx.Err() != nil {
		out.Interrupted = true
		if err == nil || errors.Is(err, context.Canceled) {
			err = fmt.Errorf("interrupted: %w", context.Canceled)
		}
	}
	if !e.Keep {
		e.emit(Event{Type: EvTeardown, Message: "tearing down"})
		out.Teardown = e.Teardown(teardownCtx, nil)
	}
	if out.Teardown != nil {
		err = multierror.Append(err, fmt.Errorf("teardown: %w", out.Teardown)).ErrorOrNil()
	}
	if err == nil && out.Failed > 0 {
		err = fmt.Errorf("%d of %d runs failed: %w", out.Failed, out.Runs, ErrRunsFailed)
	}
	e.emit(Event{Type: EvDone})
	return out, err
}

func (e *Engine) apply(ctx context.Context, p *plan.Plan, actions map[string]plan.Action, total int, out *Outcome) error {
	// Deletes of what the spec no longer has come first.
	for _, a := range p.Actions {
		if a.Op != plan.OpDelete || a.Old == nil {
			continue
		}
		prov, err := e.provider(a.Old.ProviderKey)
		if err != nil {
			return err
		}
		if err := e.deleteResource(ctx, prov, *a.Old); err != nil {
			return err
		}
	}
	for _, g := range p.Groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := e.provision(ctx, g, actions)
		if err != nil {
			return fmt.Errorf("provision %s: %w", g.Address, err)
		}
		if err := e.runGroup(ctx, l, total, out); err != nil {
			return err
		}
		// Free the group's machines before the next group's are made.
		if !e.Keep && len(p.Groups) > 1 {
			addrs := map[string]bool{g.Link.Address: true, g.Server.Address: true, g.Client.Address: true}
			if err := e.Teardown(ctx, func(r state.Resource) bool { return addrs[r.Address] }); err != nil {
				return err
			}
		}
	}
	return nil
}
