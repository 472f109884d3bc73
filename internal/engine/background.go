package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// startBackground starts r's background load (background { … }) on the
// pair's ends and returns once the load's client has started, so that the
// measured benchmark starts under load; wait then waits for the load to
// end and returns what it measured (nil without a load). A load that
// cannot start is err (wait still returns its record).
func (e *Engine) startBackground(ctx context.Context, server, client end, r plan.Run) (wait func() *results.Background, err error) {
	p := r.Spec.Background
	if p == nil {
		return func() *results.Background { return nil }, nil
	}
	runner, err := e.Runner(p.Tool)
	if err != nil {
		return func() *results.Background { return nil }, fmt.Errorf("background load: %w", err)
	}
	started := make(chan struct{})
	// The load's own gate: it opens at once and says the load's client is
	// starting (the measured flows' gate, if any, is not the load's).
	var once sync.Once
	gate := func(context.Context) error { once.Do(func() { close(started) }); return nil }
	bctx := bench.WithStartGate(ctx, gate)
	if _, gates := runner.(bench.StartGater); !gates {
		_ = gate(ctx) // nothing will say when its client starts
	}
	type outcome struct {
		raw bench.Raw
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		raw, err := runner.Run(bctx,
			bench.Endpoint{T: server.t, Addr: server.ep().Addr, CPUs: server.ep().CPUs, OS: server.osName},
			bench.Endpoint{T: client.t, Addr: client.ep().Addr, CPUs: client.ep().CPUs, OS: client.osName}, *p)
		done <- outcome{raw, err}
	}()
	var early *outcome
	select {
	case <-started:
	case o := <-done: // it ended before its client started: it failed
		early = &o
	}
	wait = func() *results.Background {
		o := early
		if o == nil {
			got := <-done
			o = &got
		}
		bg := &results.Background{Params: *p, Raw: o.raw}
		if o.err != nil {
			bg.Error = o.err.Error()
			return bg
		}
		s, err := runner.Parse(o.raw)
		if err != nil {
			bg.Error = fmt.Sprintf("parse %s output: %v", p.Tool, err)
			return bg
		}
		bg.Metrics = s
		return bg
	}
	if early != nil {
		err = early.err
		if err == nil {
			err = fmt.Errorf("%s ended before its client started", p.Tool)
		}
		return wait, fmt.Errorf("background load %s: %w", p.Tool, err)
	}
	return wait, nil
}
