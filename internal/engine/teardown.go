package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/lab-bench/lab/internal/state"
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
		errs []error
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
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
	return joinErrors(errs...)
}

// joinErrors joins errors as errors.Join does (nil errors dropped, nil
// when none is left; errors.Is and errors.As see each one), rendered the
// engine's way: one error as it is, several counted and one per line. A
// list joined into another is flattened into it, so destroy's orphans line
// up with teardown's errors.
func joinErrors(errs ...error) error {
	var list errorList
	for _, err := range errs {
		if l, ok := err.(errorList); ok {
			list = append(list, l...)
		} else if err != nil {
			list = append(list, err)
		}
	}
	if len(list) == 0 {
		return nil
	}
	return list
}

// errorList is joinErrors' result: errors.Join's Unwrap() []error, with
// its own Error.
type errorList []error

// Unwrap is every error in the list, for errors.Is and errors.As.
func (l errorList) Unwrap() []error { return l }

func (l errorList) Error() string {
	if len(l) == 1 {
		return l[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d errors:", len(l))
	for _, e := range l {
		b.WriteString("\n  * " + e.Error())
	}
	return b.String()
}
