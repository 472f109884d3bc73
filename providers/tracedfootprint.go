package providers

import (
	"context"

	"github.com/lab-bench/lab/machine"
)

// Footprint is the traced provider's (the zero Footprint, everything,
// when it does not say), so that LAB_LOG does not change which runs may
// overlap.
func (t *traced) Footprint(ctx context.Context, in machine.Instance) (Footprint, error) {
	if f, ok := t.p.(interface {
		Footprint(context.Context, machine.Instance) (Footprint, error)
	}); ok {
		return f.Footprint(ctx, in)
	}
	return Footprint{}, nil
}

// TeamFootprint is the traced provider's, else its Footprint, so that
// LAB_LOG does not change what a team's benchmark lock locks.
func (t *traced) TeamFootprint(ctx context.Context, in machine.Instance) (Footprint, error) {
	if f, ok := t.p.(interface {
		TeamFootprint(context.Context, machine.Instance) (Footprint, error)
	}); ok {
		return f.TeamFootprint(ctx, in)
	}
	return t.Footprint(ctx, in)
}
