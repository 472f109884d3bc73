package engine

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// Outcome summarises an apply.
type Outcome struct {
	Runs   int // runs recorded: a result written, failed ones included
	Failed int // of those, runs that failed (recorded with their error)
	// Stopped is the run an interrupt stopped before it had a result: not
	// recorded, not in Runs (`lab apply -resume` runs it again).
	Stopped int
	Skipped int // repeats of adaptive cells not needed once their CI was narrow enough
	// Stops are the experiments with a budget that stopped early, and why.
	Stops       []results.BudgetStop
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
	if err != nil {
		e.emit(Event{Type: EvError, Message: err.Error()})
	}
	if !e.Keep {
		e.emit(Event{Type: EvTeardown, Message: "tearing down"})
		out.Teardown = e.Teardown(teardownCtx, nil)
	}
	if out.Teardown != nil {
		err = joinErrors(err, fmt.Errorf("teardown: %w", out.Teardown))
	}
	if err == nil && out.Failed > 0 {
		err = fmt.Errorf("%d of %d runs failed: %w", out.Failed, out.Runs, ErrRunsFailed)
	}
	e.emit(Event{Type: EvDone})
	return out, err
}

func (e *Engine) apply(ctx context.Context, p *plan.Plan, actions map[string]plan.Action, total int, out *Outcome) error {
	// The plan was checked against the providers' capabilities when it was
	// made; a saved plan may meet providers configured differently since.
	for _, g := range p.Groups {
		for _, key := range []string{g.ProviderKey, g.ProviderKeyFor(g.Client.Address)} {
			if _, err := e.provider(key); err != nil {
				return err
			}
		}
	}
	if diags := plan.CheckCapabilities(p, nil, e.capabilities); diags.HasErrors() {
		return diags
	}
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
	// Every group's machines are made up front, concurrently (bounded by
	// Parallelism): provisioning 50 pairs costs little more than one. The
	// runs then go one at a time in the plan's run order, so benchmarks never
	// overlap — or, with RunsAtOnce, overlap only where their footprints
	// are disjoint (scheduler.go).
	lives := make([]*live, len(p.Groups))
	eg, gctx := errgroup.WithContext(ctx)
	for i, g := range p.Groups {
		eg.Go(func() error {
			l, err := e.provision(gctx, g, actions)
			if err != nil {
				return fmt.Errorf("provision %s: %w", g.Address, err)
			}
			lives[i] = l
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	return e.runAll(ctx, lives, total, out)
}
