package linux_test

import (
	"context"
	"io"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/guesttest"
	"github.com/lab-bench/lab/guest/linux"
)

// concurrentFake is the transcript recorder behind a lock, on a transport
// that says it runs commands at once (as netns does); it notes how many
// commands were in flight together. Each command waits (at most 2 s, a
// guard against a driver that never overlaps) for a second one to start.
type concurrentFake struct {
	mu       sync.Mutex
	rec      *guesttest.Recorder
	inFlight int
	most     int
	second   chan struct{}
	once     sync.Once
}

func (c *concurrentFake) Run(ctx context.Context, cmd guest.Cmd) (guest.Result, error) {
	c.mu.Lock()
	c.inFlight++
	c.most = max(c.most, c.inFlight)
	if c.inFlight >= 2 {
		c.once.Do(func() { close(c.second) })
	}
	c.mu.Unlock()
	select {
	case <-c.second:
	case <-time.After(2 * time.Second):
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	return c.rec.Run(ctx, cmd)
}
func (c *concurrentFake) Upload(context.Context, string, io.Reader) error { return nil }
func (c *concurrentFake) Name() string                                    { return "pair.t.server" }
func (c *concurrentFake) Close() error                                    { return nil }
func (c *concurrentFake) RunsConcurrently() bool                          { return true }

// TestObserveReadsAtOnce: on a transport that runs commands concurrently,
// Observe's independent reads overlap, and it observes exactly what it
// observes one command at a time, running the same commands.
func TestObserveReadsAtOnce(t *testing.T) {
	for _, s := range []guest.Settings{
		{MTU: 9000, Offloads: map[string]bool{"gro": true, "lro": true}, CongestionControl: "cubic",
			Sysctl: map[string]string{"net.ipv4.tcp_rmem": "4096 131072 6291456"}, Loss: &guest.Loss{Percent: 1, Method: "nth"}},
		{},
		{IPv6: true, Firewall: "chain forward { type filter hook forward priority 0; }"},
	} {
		serial := newFake(veth(t))
		want, werr := linux.New().Observe(context.Background(), serial, "veth0", s)
		rec := newFake(veth(t))
		cf := &concurrentFake{rec: rec, second: make(chan struct{})}
		got, gerr := linux.New().Observe(context.Background(), cf, "veth0", s)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: concurrent %+v (%v), serial %+v (%v)", s, got, gerr, want, werr)
		}
		if cf.most < 2 {
			t.Errorf("%+v: at most %d command in flight, want the reads to overlap", s, cf.most)
		}
		if a, b := commands(rec.Log.String()), commands(serial.Log.String()); !reflect.DeepEqual(a, b) {
			t.Errorf("%+v: concurrent ran\n%s\nserial ran\n%s", s, a, b)
		}
	}
}

func commands(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "$ ") {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}
