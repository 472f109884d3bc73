package guest_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
)

// countingTransport answers every command with its own command line and
// counts the runs of each; concurrent says whether it claims to run them
// at once.
type countingTransport struct {
	concurrent bool
	mu         sync.Mutex
	runs       map[string]int
}

func (c *countingTransport) Run(_ context.Context, cmd guest.Cmd) (guest.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[cmd.String()]++
	return guest.Result{Stdout: []byte(cmd.String())}, nil
}
func (c *countingTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (c *countingTransport) Name() string                                    { return "pair.t.server" }
func (c *countingTransport) Close() error                                    { return nil }
func (c *countingTransport) RunsConcurrently() bool                          { return c.concurrent }

// TestPrefetch: on a concurrent transport (also behind guest.Traced) each
// prefetched command runs once and answers the driver's Run of the same
// command line; anything else still runs; on any other transport nothing
// runs ahead.
func TestPrefetch(t *testing.T) {
	cmds := []guest.Cmd{{Argv: []string{"uname", "-r"}}, {Argv: []string{"ethtool", "-i", "eth0"}}}
	for _, tc := range []struct {
		name       string
		concurrent bool
		traced     bool
		wantAhead  bool // false: Prefetch returns the transport itself
	}{{"concurrent", true, false, true}, {"traced", true, true, true}, {"serial", false, false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			ct := &countingTransport{concurrent: tc.concurrent, runs: map[string]int{}}
			var tr guest.Transport = ct
			if tc.traced {
				tr = guest.Traced(ct, slog.New(slog.NewTextHandler(io.Discard, nil)))
			}
			pt, stop := guest.Prefetch(context.Background(), tr, cmds)
			if ahead := pt != tr; ahead != tc.wantAhead {
				t.Errorf("commands run ahead: %v, want %v", ahead, tc.wantAhead)
			}
			for _, c := range append(cmds, guest.Cmd{Argv: []string{"ethtool", "-k", "eth0"}}) {
				res, err := pt.Run(context.Background(), c)
				if err != nil || string(res.Stdout) != c.String() {
					t.Errorf("%s: %q, %v", c, res.Stdout, err)
				}
			}
			stop()
			for _, c := range append(cmds, guest.Cmd{Argv: []string{"ethtool", "-k", "eth0"}}) {
				if n := ct.runs[c.String()]; n != 1 {
					t.Errorf("%s ran %d times, want once", c, n)
				}
			}
		})
	}
}
