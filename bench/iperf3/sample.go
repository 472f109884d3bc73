package iperf3

import (
	"context"
	"errors"
	"time"

	"github.com/lab-bench/lab/bench"
)

// pair is a server and a client CPU sample.
type pair struct {
	srv, cli map[int]bench.CPUTimes
	err      error
}

// sampling takes the first CPU samples after a delay (the omit period) and
// the second ones when stopped.
type sampling struct {
	r      *Runner
	server bench.Endpoint
	client bench.Endpoint
	cancel chan struct{}
	first  chan pair
}

var errNoSample = errors.New("the client exited before the omit period ended")

func (r *Runner) startSampling(ctx context.Context, server, client bench.Endpoint, delay time.Duration) *sampling {
	s := &sampling{r: r, server: server, client: client, cancel: make(chan struct{}), first: make(chan pair, 1)}
	go func() {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
			s.first <- s.read(ctx)
		case <-s.cancel:
			s.first <- pair{err: errNoSample}
		}
	}()
	return s
}

// stop takes the second samples and returns [before, after] for each end.
func (s *sampling) stop(ctx context.Context) (srv, cli [2]map[int]bench.CPUTimes, err error) {
	close(s.cancel)
	a := <-s.first
	if a.err != nil {
		return srv, cli, a.err
	}
	b := s.read(ctx)
	if b.err != nil {
		return srv, cli, b.err
	}
	return [2]map[int]bench.CPUTimes{a.srv, b.srv}, [2]map[int]bench.CPUTimes{a.cli, b.cli}, nil
}

// read samples both ends at (nearly) the same time.
func (s *sampling) read(ctx context.Context) pair {
	var p pair
	done := make(chan error, 1)
	go func() {
		var err error
		p.srv, err = bench.SampleCPU(ctx, s.r.ReadCPU, s.server)
		done <- err
	}()
	var errCli error
	p.cli, errCli = bench.SampleCPU(ctx, s.r.ReadCPU, s.client)
	p.err = errors.Join(<-done, errCli)
	return p
}
