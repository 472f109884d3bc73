package engine

import (
	"context"
	"fmt"

	"github.com/lab-bench/lab/machine"
)

// Destroy removes everything in state. With orphans it also asks every
// provider for objects tagged as owner's — this lab in this workspace,
// matched exactly — that state does not list (left by a crash before state
// could be written, or by a lost state file).
func (e *Engine) Destroy(ctx context.Context, owner machine.Owner, orphans bool) error {
	err := e.Teardown(ctx, nil)
	if !orphans {
		return err
	}
	errs := []error{err}
	for key, prov := range e.Providers {
		found, lerr := prov.List(ctx, owner)
		if lerr != nil {
			errs = append(errs, fmt.Errorf("list %s: %w", key, lerr))
		}
		for _, kind := range []string{"machine", "link"} {
			for _, in := range found {
				if in.Kind != kind {
					continue
				}
				in.Owner = owner
				e.emit(Event{Type: EvDelete, Address: in.Address, Message: in.Name + " (orphan)"})
				if derr := prov.Delete(ctx, in); derr != nil {
					errs = append(errs, fmt.Errorf("delete orphan %s: %w", in.Name, derr))
					continue
				}
				e.emit(Event{Type: EvDeleted, Address: in.Address, Message: in.Name})
			}
		}
	}
	return joinErrors(errs...)
}
