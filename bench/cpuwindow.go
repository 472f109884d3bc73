package bench

import (
	"context"
	"errors"
	"time"

	"github.com/lab-bench/lab/guest"
)

// CPUWindow is when a run (ClientServer) reads both ends' CPU times: its
// figures cover the first reading to the second, which is taken right
// after the client exits.
type CPUWindow struct {
	// Background takes the first reading in the background, Delay after
	// the client starts (iperf3: the end of its omit period), so that the
	// client starts without waiting for it; both ends are read at once,
	// for either reading. Otherwise the first reading is taken right
	// before the client starts, and each reads the server's end and then
	// the client's (SampleBoth).
	Background bool
	Delay      time.Duration
}

// cpuReader reads an end's per-CPU times (nil: CPUReader for its OS).
type cpuReader = func(context.Context, guest.Transport) (map[int]CPUTimes, error)

// cpuReading is one reading of both ends: server's, then client's.
type cpuReading struct {
	ends [2]map[int]CPUTimes
	err  error
}

// cpuSampling is a window being sampled: stop takes the second reading.
type cpuSampling struct {
	w              CPUWindow
	read           cpuReader
	server, client Endpoint
	cancel         chan struct{}
	first          chan cpuReading
}

// errNoSample is a background window's error when the client exited
// before the first reading was due.
var errNoSample = errors.New("the client exited before the omit period ended")

// start takes (or, in the background, schedules) the first reading.
func (w CPUWindow) start(ctx context.Context, read cpuReader, server, client Endpoint) *cpuSampling {
	s := &cpuSampling{w: w, read: read, server: server, client: client,
		cancel: make(chan struct{}), first: make(chan cpuReading, 1)}
	if !w.Background {
		s.first <- s.take(ctx)
		return s
	}
	go func() {
		t := time.NewTimer(w.Delay)
		defer t.Stop()
		select {
		case <-t.C:
			s.first <- s.take(ctx)
		case <-s.cancel:
			s.first <- cpuReading{err: errNoSample}
		}
	}()
	return s
}

// stop takes the second reading and returns both, each [server, client].
// In the foreground, both readings are taken whatever the first's error,
// and the errors are joined.
func (s *cpuSampling) stop(ctx context.Context) (before, after [2]map[int]CPUTimes, err error) {
	close(s.cancel)
	a := <-s.first
	if s.w.Background && a.err != nil {
		return before, after, a.err
	}
	b := s.take(ctx)
	return a.ends, b.ends, errors.Join(a.err, b.err)
}

// take reads both ends: one after the other (SampleBoth) or, for a
// background window, at (nearly) the same time.
func (s *cpuSampling) take(ctx context.Context) cpuReading {
	var r cpuReading
	if !s.w.Background {
		r.ends, r.err = SampleBoth(ctx, s.read, s.server, s.client)
		return r
	}
	done := make(chan error, 1)
	go func() {
		var err error
		r.ends[0], err = SampleCPU(ctx, s.read, s.server)
		done <- err
	}()
	var errCli error
	r.ends[1], errCli = SampleCPU(ctx, s.read, s.client)
	r.err = errors.Join(<-done, errCli)
	return r
}
