package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lab-bench/lab/guest"
)

// Helpers for runners whose server keeps running until it is stopped
// (iperf2 -s, netserver -D): pick a free port, start the server, wait until
// it listens, stop it and keep what it printed.

var (
	portMu   sync.Mutex
	nextPort = map[int]int{}
)

// PortFor is the port a run uses: asked when the spec gave one (not 0),
// else FreePort's pick from base up, within 1000.
func PortFor(ctx context.Context, ep Endpoint, asked, base int) (int, error) {
	if asked != 0 {
		return asked, nil
	}
	return FreePort(ctx, ep, base, 1000)
}

// FreePort picks the next port from base up (within span) that no TCP
// socket listens on in ep's network stack. Concurrent callers in one
// process get distinct ports.
func FreePort(ctx context.Context, ep Endpoint, base, span int) (int, error) {
	for range 50 {
		portMu.Lock()
		port := base + nextPort[base]%span
		nextPort[base]++
		portMu.Unlock()
		busy, err := Listening(ctx, ep, port)
		if err != nil {
			return 0, err
		}
		if !busy {
			return port, nil
		}
	}
	return 0, fmt.Errorf("%s: no free port from %d", ep.T.Name(), base)
}

// Server is a long-running benchmark server on one end.
type Server struct {
	T      guest.Transport
	Cmd    guest.Cmd
	cancel context.CancelFunc
	done   chan serverExit
}

type serverExit struct {
	res guest.Result
	err error
}

// readiness is how startServer knows a server takes clients: check reports
// it, state names it in errors, timeout bounds the wait and poll is how
// often check is asked.
type readiness struct {
	check   func(context.Context) (bool, error)
	state   string
	timeout time.Duration
	poll    time.Duration
}

// failureFunc turns a finished command's result into its error, nil when
// the command succeeded (ClientServer.ServerFailure).
type failureFunc func(t guest.Transport, c guest.Cmd, res guest.Result, err error) error

// startServer runs cmd on ep in the background and waits until r.check
// reports it ready. A server that exits first fails with failed's error
// of its result (nil failed: its own error) or, when that is nil, with one
// naming the guest, the command and what it printed.
func startServer(ctx context.Context, ep Endpoint, cmd guest.Cmd, r readiness, failed failureFunc) (*Server, error) {
	t := ep.T
	sctx, cancel := context.WithCancel(ctx)
	s := &Server{T: t, Cmd: cmd, cancel: cancel, done: make(chan serverExit, 1)}
	go func() {
		res, err := t.Run(sctx, cmd)
		s.done <- serverExit{res, err}
	}()
	deadline := time.NewTimer(r.timeout)
	defer deadline.Stop()
	tick := time.NewTicker(r.poll)
	defer tick.Stop()
	for {
		ok, err := r.check(ctx)
		if err != nil {
			s.Stop()
			return nil, err
		}
		if ok {
			return s, nil
		}
		select {
		case x := <-s.done:
			cancel()
			err := x.err
			if failed != nil {
				err = failed(t, cmd, x.res, x.err)
			}
			if err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %s exited before %s: %s", t.Name(), cmd, r.state,
				strings.TrimSpace(string(x.res.Stdout)+string(x.res.Stderr)))
		case <-deadline.C:
			s.Stop()
			return nil, fmt.Errorf("%s: %s not %s after %v", t.Name(), cmd, r.state, r.timeout)
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

// Stop kills the server and returns what it printed (stdout then stderr).
// It is safe to call more than once.
func (s *Server) Stop() string {
	x := s.halt()
	return string(x.res.Stdout) + string(x.res.Stderr)
}

// halt kills the server, if it still runs, and returns how it exited; the
// zero serverExit once it was returned before.
func (s *Server) halt() serverExit {
	s.cancel()
	x, ok := <-s.done
	if !ok {
		return serverExit{}
	}
	close(s.done)
	return x
}

// await waits up to timeout for a server that exits by itself (iperf3
// -s -1) and reports whether it did; one that did not is killed (halt).
func (s *Server) await(timeout time.Duration) (serverExit, bool) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case x := <-s.done:
		close(s.done)
		return x, true
	case <-t.C:
		return s.halt(), false
	}
}
