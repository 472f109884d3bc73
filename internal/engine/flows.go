package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// MaxFlowSkew is the bound on how far apart concurrent flows' clients may
// start (the latest start minus the earliest): a skew above it is warned
// about and stated in the records, as the flows then overlapped less than
// their whole duration. 100 ms is 1 % of a 10 s run; the start gate keeps
// the clients of local namespaces within a few milliseconds of each other.
const MaxFlowSkew = 100 * time.Millisecond

// flow is one run of a batch of concurrent flows, on its pair's session.
type flow struct {
	s *session
	r plan.Run
}

// runFlows runs the flows of one cell of a concurrent experiment at the
// same moment: each is configured, its server started and, once every
// flow's server listens, all the clients are released together (a start
// gate, bench.WithStartGate). Each flow is recorded as its own run, with
// the pairs it ran with and the clients' start skew (results.Flow).
func (e *Engine) runFlows(ctx context.Context, flows []flow, adapt *adaptive, total int, out *Outcome) error {
	var run []flow
	for _, f := range flows {
		if skip, err := e.skip(f.r, adapt, total, out); err != nil {
			return err
		} else if skip {
			continue
		}
		run = append(run, f)
	}
	if len(run) == 0 {
		return nil
	}
	sessions := make([]*session, len(run))
	for i, f := range run {
		sessions[i] = f.s
	}
	release, err := e.hostLock(ctx, sessions...)
	if err != nil {
		return err
	}
	recs, errs := e.runTogether(ctx, run, total)
	release()

	pairs := make([]string, len(run))
	starts := make([]time.Time, len(run))
	for i, f := range run {
		pairs[i] = f.r.Pair
		starts[i] = recs[i].Raw.Start
	}
	skew := results.Skew(starts)
	if skew > MaxFlowSkew {
		e.emit(Event{Type: EvWarning, Address: run[0].r.Experiment, Message: fmt.Sprintf(
			"runs %d-%d (%s #%d): the concurrent flows' clients started %s apart, more than the %s bound: they overlapped that much less",
			run[0].r.Index, run[len(run)-1].r.Index, run[0].r.CellKey, run[0].r.Repeat, skew.Round(time.Millisecond), MaxFlowSkew)})
	}
	for i, f := range run {
		recs[i].Flow = &results.Flow{Pairs: pairs, ClientStart: recs[i].Raw.Start,
			SkewMs: float64(skew) / float64(time.Millisecond), SkewBoundMs: float64(MaxFlowSkew) / float64(time.Millisecond)}
		if err := e.finish(ctx, f.s, f.r, recs[i], errs[i], adapt, total, out); err != nil {
			if ctx.Err() != nil {
				out.Stopped += len(run) - i - 1 // finish counted this one
			}
			return err
		}
	}
	return nil
}

// runTogether runs every flow in its own goroutine behind one start gate
// and returns their records and errors, in the flows' order.
func (e *Engine) runTogether(ctx context.Context, run []flow, total int) ([]results.Record, []error) {
	gate := newStartGate(len(run))
	recs := make([]results.Record, len(run))
	errs := make([]error, len(run))
	var wg sync.WaitGroup
	for i, f := range run {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := gate.party()
			// A flow that ends before its client starts (a failed
			// configure, a server that never listened) stops holding
			// the others back.
			defer p.leave()
			recs[i], errs[i] = e.runWatched(bench.WithStartGate(ctx, p.arrive), f.s, f.r, total)
		}()
	}
	wg.Wait()
	return recs, errs
}

// startGate opens once every party still in has arrived: the flows whose
// servers listen are released together, and one that failed before its
// client starts leaves instead of arriving.
type startGate struct {
	mu      sync.Mutex
	waiting int // parties neither arrived nor left
	open    chan struct{}
	opened  bool
}

func newStartGate(parties int) *startGate {
	return &startGate{waiting: parties, open: make(chan struct{})}
}

// party is one flow's place at the gate.
type party struct {
	g    *startGate
	done bool // arrived or left
}

func (g *startGate) party() *party { return &party{g: g} }

// arrive waits until the gate opens (or ctx is done).
func (p *party) arrive(ctx context.Context) error {
	p.g.settle(p)
	select {
	case <-p.g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave takes a party that never arrived out of the gate's count.
func (p *party) leave() { p.g.settle(p) }

// settle counts the party as done once, opening the gate when it was the
// last one outstanding.
func (g *startGate) settle(p *party) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	g.waiting--
	if g.waiting == 0 && !g.opened {
		g.opened = true
		close(g.open)
	}
}
