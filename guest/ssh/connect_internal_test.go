package ssh

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A connect that ran out of time is told from a refused one through the
// wrapping Dial adds; the refused one still matches ECONNREFUSED.
func TestConnectErrorTimeout(t *testing.T) {
	// A real dial timeout: a deadline already passed.
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, timedOut := (&net.Dialer{}).DialContext(ctx, "tcp", "127.0.0.1:9")
	if timedOut == nil {
		t.Fatal("dial with a past deadline succeeded")
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name       string
		err        error
		timeout    bool
		refusedToo bool
	}{
		{"timed out", timedOut, true, false},
		{"refused", refused, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fmt.Errorf("guest: connect 10.0.0.1:22: %w", &connectError{tc.err})
			var ce *connectError
			if !errors.As(err, &ce) || ce.timeout() != tc.timeout {
				t.Errorf("timeout() = %v, want %v (%v)", ce != nil && ce.timeout(), tc.timeout, err)
			}
			if errors.Is(err, syscall.ECONNREFUSED) != tc.refusedToo {
				t.Errorf("errors.Is(ECONNREFUSED) = %v, want %v", !tc.refusedToo, tc.refusedToo)
			}
			if err.Error() != "guest: connect 10.0.0.1:22: "+tc.err.Error() {
				t.Errorf("text changed: %q", err.Error())
			}
		})
	}
}

// pollAttempts is a scripted dial for pollConnect: attempt n (from 1)
// does what plan[n-1] says — "drop" waits for its context like a SYN the
// guest drops, "refuse" fails at once like a port nothing listens on,
// "connect" returns a connection; attempts past the plan drop. It counts
// the attempts and how many saw their context end.
type pollAttempts struct {
	plan               []string
	mu                 sync.Mutex
	started, cancelled int
	conns              []*countedConn
}

type countedConn struct {
	net.Conn
	closed atomic.Bool
}

func (c *countedConn) Close() error { c.closed.Store(true); return c.Conn.Close() }

func (p *pollAttempts) dial(ctx context.Context) (net.Conn, error) {
	p.mu.Lock()
	p.started++
	what := "drop"
	if p.started <= len(p.plan) {
		what = p.plan[p.started-1]
	}
	p.mu.Unlock()
	switch what {
	case "refuse":
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	case "connect":
		a, b := net.Pipe()
		b.Close()
		c := &countedConn{Conn: a}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		return c, nil
	}
	<-ctx.Done()
	p.mu.Lock()
	p.cancelled++
	p.mu.Unlock()
	return nil, ctx.Err()
}

// pollConnect starts a new connect at every tick without waiting for the
// earlier ones, and whichever connects first is the connection: dropped
// SYNs and refusals before it cost one tick each, not a kernel SYN resend
// (1 s) or a backoff. Every other attempt has ended when it returns.
func TestPollConnect(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan []string
		// winner is the attempt whose connection is returned.
		winner int
	}{
		{"dropped SYNs, then the address is set", []string{"drop", "drop", "drop", "connect"}, 4},
		{"refused until sshd listens", []string{"refuse", "refuse", "refuse", "refuse", "connect"}, 5},
		{"dropped, refused, listening", []string{"drop", "drop", "refuse", "refuse", "connect"}, 5},
		{"the first attempt connects", []string{"connect"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pollAttempts{plan: tc.plan}
			// The window outlasts the test: the dropped attempts end only
			// because a later one connected.
			c, err := pollConnect(context.Background(), p.dial, time.Millisecond, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.conns) != 1 || c != p.conns[0] {
				t.Fatalf("returned %v, want attempt %d's connection (%d connected)", c, tc.winner, len(p.conns))
			}
			if p.started < tc.winner {
				t.Errorf("%d attempts started, want at least %d", p.started, tc.winner)
			}
			dropped := 0
			for i := 0; i < p.started; i++ {
				if i >= len(tc.plan) || tc.plan[i] == "drop" {
					dropped++
				}
			}
			if p.cancelled != dropped {
				t.Errorf("%d of %d waiting attempts were ended on return", p.cancelled, dropped)
			}
			if p.conns[0].closed.Load() {
				t.Error("the returned connection was closed")
			}
		})
	}
}

// Two attempts that both connect: the one whose answer comes first is
// returned, the other closed, never leaked. (Attempt 1 answers only once
// attempt 2 has connected, but which of the two answers reaches the poll
// first is the scheduler's choice: either is right.)
func TestPollConnectClosesTheLoser(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int32
	var conns [2]atomic.Pointer[countedConn]
	dial := func(ctx context.Context) (net.Conn, error) {
		i := n.Add(1)
		if i > 2 { // later attempts wait, as a dropped SYN does
			<-ctx.Done()
			return nil, ctx.Err()
		}
		a, b := net.Pipe()
		b.Close()
		c := &countedConn{Conn: a}
		conns[i-1].Store(c)
		if i == 1 {
			<-release // answers late, after attempt 2 connected
		} else {
			close(release)
		}
		return c, nil
	}
	c, err := pollConnect(context.Background(), dial, time.Millisecond, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	first, second := conns[0].Load(), conns[1].Load()
	if first == nil || second == nil {
		t.Fatalf("both attempts must have connected before the poll returned: %p, %p", first, second)
	}
	won, lost := first, second
	if c == net.Conn(second) {
		won, lost = second, first
	}
	if c != net.Conn(won) || won.closed.Load() || !lost.closed.Load() {
		t.Errorf("returned %p (closed %v), the other %p closed %v: want one returned open and the other closed",
			c, won.closed.Load(), lost, lost.closed.Load())
	}
}

// With nothing answering, the poll ends with its context and says why:
// the last attempt's error, a refusal here; every attempt has ended.
func TestPollConnectGivesUp(t *testing.T) {
	p := &pollAttempts{plan: []string{"drop", "refuse", "drop"}}
	// The context ends once the three planned attempts have started (not
	// after a fixed time, which a loaded machine may spend before the
	// second attempt even runs).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			p.mu.Lock()
			started := p.started
			p.mu.Unlock()
			if started >= 3 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := pollConnect(ctx, p.dial, time.Millisecond, time.Hour)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("got %v, want the refusal", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancelled != p.started-1 {
		t.Errorf("%d attempts started, %d ended by the context (want all but the refused one)", p.started, p.cancelled)
	}
}

// An attempt that waits longer than the window is given up while the
// poll goes on: a poll whose attempts all drop keeps at most about
// window/every of them under way.
func TestPollConnectWindow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var started, windowEnded atomic.Int32
	dial := func(actx context.Context) (net.Conn, error) {
		started.Add(1)
		<-actx.Done()
		if ctx.Err() == nil {
			windowEnded.Add(1) // the poll itself still runs
		}
		return nil, actx.Err()
	}
	if _, err := pollConnect(ctx, dial, time.Millisecond, 5*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want a deadline", err)
	}
	if windowEnded.Load() == 0 || windowEnded.Load() >= started.Load() {
		t.Errorf("%d of %d attempts were given up by their window before the poll ended", windowEnded.Load(), started.Load())
	}
}

// timeout reports a connect that ran out of time.
func (e *connectError) timeout() bool {
	var ne net.Error
	return errors.As(e.err, &ne) && ne.Timeout()
}
