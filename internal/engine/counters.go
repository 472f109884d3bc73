package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// counterReading is one end's counters read before a run, to subtract
// from the reading after it.
type counterReading struct {
	side  end
	iface string
	drv   guest.Counters
	snap  *guest.CounterSnapshot
}

// readCounters reads both ends' counters (guest.Counters) at once. An end
// whose OS reads none has a nil snapshot; a failed read is a warning
// naming the guest and the command, never a failed run.
func (e *Engine) readCounters(ctx context.Context, ends ...*counterReading) {
	var wg sync.WaitGroup
	for _, r := range ends {
		if r.drv.Read == nil || r.iface == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.snap = nil
			cmd := r.drv.Read(r.iface)
			res, err := r.side.t.Run(ctx, cmd)
			var snap guest.CounterSnapshot
			if err == nil {
				snap, err = r.drv.Parse(string(res.Stdout))
			}
			if err != nil {
				e.emit(Event{Type: EvWarning, Address: r.side.in.Address, Message: "counters not recorded: " + commandFailure(cmd, err)})
				return
			}
			r.snap = &snap
		}()
	}
	wg.Wait()
}

// commandFailure says why cmd failed, naming it by its Label (never its
// whole script): a *guest.CommandError names the guest and the command
// itself; any other error (the output did not parse) gets the label in
// front.
func commandFailure(cmd guest.Cmd, err error) string {
	if ce := (*guest.CommandError)(nil); errors.As(err, &ce) {
		return err.Error()
	}
	return fmt.Sprintf("%s: %v", cmd.Label(), err)
}

// runReadings are a run's two ends' readings before the benchmark.
type runReadings struct {
	ends   [2]*counterReading
	before [2]*guest.CounterSnapshot
}

// startCounters reads the server's and the client's counters before a
// run (on their benchmark interfaces ifS and ifC).
func (e *Engine) startCounters(ctx context.Context, server, client end, ifS, ifC string) runReadings {
	r := runReadings{ends: [2]*counterReading{{side: server, iface: ifS}, {side: client, iface: ifC}}}
	if e.Counters != nil {
		r.ends[0].drv, r.ends[1].drv = e.Counters(server.osName), e.Counters(client.osName)
	}
	e.readCounters(ctx, r.ends[:]...)
	r.before = [2]*guest.CounterSnapshot{r.ends[0].snap, r.ends[1].snap}
	return r
}

// countersBefore takes the counters' reading before run r (startCounters)
// while the benchmark's server starts, not before it: the reading makes no
// traffic and none flows before the client starts, so the client waits
// for it at the run's start gate (bench.AwaitStart) and the server's
// start-up is not held up by it — one command's time less between two
// runs. ctx's own gate, if any (a concurrent experiment's flows), is
// awaited after it. With a background load the reading stays before the
// load starts, as the load's traffic belongs in the run's counters. The
// returned context carries the gate; wait returns the readings once
// taken, and must be called before the run returns (it may be called
// more than once).
func (e *Engine) countersBefore(ctx context.Context, r plan.Run, server, client end, ifS, ifC string) (gctx context.Context, wait func() runReadings) {
	if r.Spec.Background != nil {
		c := e.startCounters(ctx, server, client, ifS, ifC)
		return ctx, func() runReadings { return c }
	}
	done := make(chan struct{})
	var c runReadings
	go func() {
		defer close(done)
		c = e.startCounters(ctx, server, client, ifS, ifC)
	}()
	gctx = bench.WithStartGate(ctx, func(rctx context.Context) error {
		select {
		case <-done:
		case <-rctx.Done():
			return rctx.Err()
		}
		return bench.AwaitStart(ctx) // the gate ctx had, not this one
	})
	return gctx, func() runReadings { <-done; return c }
}

// finishCounters reads them again after the run: the record's counters.
func (e *Engine) finishCounters(ctx context.Context, r runReadings) *results.RunCounters {
	e.readCounters(ctx, r.ends[:]...)
	return runCounters(r.before, [2]*guest.CounterSnapshot{r.ends[0].snap, r.ends[1].snap})
}

// runCounters are the differences between the readings after a run and
// before (nil when neither end has both).
func runCounters(before, after [2]*guest.CounterSnapshot) *results.RunCounters {
	var rc results.RunCounters
	diff := func(b, a *guest.CounterSnapshot) *guest.CounterSnapshot {
		if b == nil || a == nil {
			return nil
		}
		d := a.Since(*b)
		return &d
	}
	rc.Server, rc.Client = diff(before[0], after[0]), diff(before[1], after[1])
	if rc.Server == nil && rc.Client == nil {
		return nil
	}
	return &rc
}
