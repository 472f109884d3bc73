package engine

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-multierror"

	"github.com/lab-bench/lab/state"
)

// Teardown deletes every resource in state whose address passes keep
// (nil: all), machines before links, newest first, and collects every
// error instead of stopping at the first.
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
	var errs *multierror.Error
	// Machines first (they hold the link's ends), then links.
	for _, kind := range []string{"machine", "link"} {
		for _, r := range todo {
			if r.Kind != kind {
				continue
			}
			if ctx.Err() != nil {
				errs = multierror.Append(errs, fmt.Errorf("teardown abandoned before %s: %w", r.Address, ctx.Err()))
				continue
			}
			prov, err := e.provider(r.ProviderKey)
			if err != nil {
				errs = multierror.Append(errs, fmt.Errorf("delete %s: %w", r.Address, err))
				continue
			}
			if err := e.deleteResource(ctx, prov, r); err != nil {
				errs = multierror.Append(errs, err)
			}
		}
	}
	return errs.ErrorOrNil()
}
