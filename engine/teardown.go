package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/go-multierror"

	"github.com/lab-bench/lab/state"
)

// Teardown deletes every resource in state that match accepts (nil: all):
// all machines first, concurrently within Parallelism, then the links they
// were attached to. Every error is collected instead of stopping at the
// first; what could not be deleted stays in state as tainted.
func (e *Engine) Teardown(ctx context.Context, match func(state.Resource) bool) error {
	e.mu.Lock()
	var todo []state.Resource
	for i := len(e.State.Resources) - 1; i >= 0; i-- {
		r := e.State.Resources[i]
		if match == nil || match(r) {
			todo = append(todo, r)
		}
	}
	e.mu.Unlock()
	var (
		mu   sync.Mutex
		errs *multierror.Error
	)
	fail := func(err error) {
		mu.Lock()
		errs = multierror.Append(errs, err)
		mu.Unlock()
	}
	for _, kind := range []string{"machine", "link"} {
		var wg sync.WaitGroup
		for _, r := range todo {
			if r.Kind != kind {
				continue
			}
			if ctx.Err() != nil {
				fail(fmt.Errorf("teardown abandoned before %s: %w", r.Address, ctx.Err()))
				continue
			}
			prov, err := e.provider(r.ProviderKey)
			if err != nil {
				fail(fmt.Errorf("delete %s: %w", r.Address, err))
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A borrowed machine gets its settings back before it is let
				// go; if that fails it stays in state for `lab destroy`.
				if err := e.restoreBorrowed(ctx, prov, r); err != nil {
					r.Status = state.Tainted
					_ = e.put(r)
					fail(err)
					return
				}
				if err := e.deleteResource(ctx, prov, r); err != nil {
					fail(err)
				}
			}()
		}
		wg.Wait()
	}
	if errs != nil {
		errs.ErrorFormat = listErrors
	}
	return errs.ErrorOrNil()
}

// listErrors renders several errors one per line, without multierror's
// bullet preamble noise for a single error.
func listErrors(es []error) string {
	if len(es) == 1 {
		return es[0].Error()
	}
	s := fmt.Sprintf("%d errors:", len(es))
	for _, e := range es {
		s += "\n  * " + e.Error()
	}
	return s
}
