package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lab-bench/lab/machine"
)

// aliveChecker is implemented, optionally, by providers that can tell a
// machine stopped (a libvirt domain shut off): Alive returns an error
// naming the machine and its state when it knows the machine is down, nil
// otherwise.
type aliveChecker interface {
	Alive(ctx context.Context, in machine.Instance) error
}

// aliveEvery is how often a run's machines are checked.
var aliveEvery = time.Second

// watchRun returns the context run index runs under. With a provider that
// can tell, it ends as soon as one of ends' machines stops (or loses its
// network), and stop then returns why ("domain x shut off during run 3");
// otherwise it is ctx and stop returns nil. A machine already down fails
// the run before it starts.
//
// A machine found down also has its transport closed, right after the
// run's context ends: a command on it would otherwise wait for a peer that
// is gone — the SSH session's close and the remote kill each wait out
// their bound (seconds) before the run can end. Its later runs fail before
// they start, so nothing needs the transport again.
func watchRun(ctx context.Context, index int, all ...end) (context.Context, func() error) {
	// Each end is asked of the provider that made it (a cross pair's two).
	var ends []end
	for _, e := range all {
		if _, ok := e.prov.(aliveChecker); ok {
			ends = append(ends, e)
		}
	}
	if len(ends) == 0 {
		return ctx, func() error { return nil }
	}
	rctx, cancel := context.WithCancelCause(ctx)
	check := func() bool {
		var first error
		var down []end
		for _, e := range ends {
			if err := e.prov.(aliveChecker).Alive(rctx, e.in); err != nil && rctx.Err() == nil {
				if first == nil {
					first = err
				}
				down = append(down, e)
			}
		}
		if first == nil {
			return true
		}
		cancel(fmt.Errorf("%w during run %d", first, index))
		for _, e := range down {
			if e.t != nil {
				_ = e.t.Close() // the peer is gone: nothing to say goodbye to
			}
		}
		return false
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
