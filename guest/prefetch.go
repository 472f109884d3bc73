package guest

import (
	"context"
	"sync"
)

// ConcurrentRunner is a Transport that says whether it runs commands at
// the same time when they are asked at once (a network namespace on this
// machine does: each command is its own process). Transports without the
// method are used one command at a time.
type ConcurrentRunner interface {
	RunsConcurrently() bool
}

// Concurrent reports whether t runs commands concurrently (ConcurrentRunner).
func Concurrent(t Transport) bool {
	c, ok := t.(ConcurrentRunner)
	return ok && c.RunsConcurrently()
}

// Prefetch starts every command of cmds on t at once, when t runs commands
// concurrently, and returns a Transport whose Run answers each of them
// (matched by its command line, once) with its result, and runs anything
// else on t. A driver reading several independent values can then keep
// its code sequential while the reads overlap. On any other transport it
// returns t itself: the commands then run in the driver's order, one at a
// time, as without it. stop cancels what is still running and waits for
// it; call it before returning.
func Prefetch(ctx context.Context, t Transport, cmds []Cmd) (pt Transport, stop func()) {
	if !Concurrent(t) || len(cmds) == 0 {
		return t, func() {}
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &prefetched{Transport: t, calls: map[string][]*call{}}
	var wg sync.WaitGroup
	for _, c := range cmds {
		cl := &call{done: make(chan struct{})}
		p.calls[c.String()] = append(p.calls[c.String()], cl)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl.res, cl.err = t.Run(pctx, c)
			close(cl.done)
		}()
	}
	return p, func() { cancel(); wg.Wait() }
}

type call struct {
	done chan struct{}
	res  Result
	err  error
}

type prefetched struct {
	Transport
	mu    sync.Mutex
	calls map[string][]*call
}

// Run answers c from a prefetched command with the same command line (one
// without standard input), else runs it.
func (p *prefetched) Run(ctx context.Context, c Cmd) (Result, error) {
	if c.Stdin == nil {
		p.mu.Lock()
		cs := p.calls[c.String()]
		var cl *call
		if len(cs) > 0 {
			cl, p.calls[c.String()] = cs[0], cs[1:]
		}
		p.mu.Unlock()
		if cl != nil {
			select {
			case <-cl.done:
				return cl.res, cl.err
			case <-ctx.Done():
				return Result{}, &CommandError{Guest: p.Name(), Cmd: c.String(), Err: ctx.Err()}
			}
		}
	}
	return p.Transport.Run(ctx, c)
}
