package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lab-bench/lab/providers"
)

// aliveChecker is implemented, optionally, by providers that can tell a
// machine stopped (a libvirt domain shut off): Alive returns an error
// naming the machine and its state when it knows the machine is down, nil
// otherwise.
type aliveChecker interface {
	Alive(ctx context.Context, in providers.Instance) error
}

// aliveEvery is how often a run's machines are checked.
var aliveEvery = time.Second

// watchRun returns the context run index runs under. With a provider that
// can tell, it ends as soon as one of ins stops, and stop then returns why
// ("domain x shut off during run 3"); otherwise it is ctx and stop returns
// nil. A machine already down fails the run before it starts.
func watchRun(ctx context.Context, prov providers.Provider, index int, ins ...providers.Instance) (context.Context, func() error) {
	ac, ok := prov.(aliveChecker)
	if !ok {
		return ctx, func() error { return nil }
	}
	rctx, cancel := context.WithCancelCause(ctx)
	check := func() bool {
		for _, in := range ins {
			if err := ac.Alive(rctx, in); err != nil && rctx.Err() == nil {
				cancel(fmt.Errorf("%w during run %d", err, index))
				return false
			}
		}
		return true
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	if check() {
		go func() {
			defer close(finished)
			t := time.NewTicker(aliveEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-rctx.Done():
					return
				case <-t.C:
					if !check() {
						return
					}
				}
			}
		}()
	} else {
		close(finished)
	}
	return rctx, func() error {
		close(done)
		<-finished
		var err error
		if ctx.Err() == nil && rctx.Err() != nil {
			if cause := context.Cause(rctx); !errors.Is(cause, context.Canceled) {
				err = cause
			}
		}
		cancel(nil)
		return err
	}
}
