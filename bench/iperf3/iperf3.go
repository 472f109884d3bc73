// Package iperf3 runs iperf3 between two guests and parses its JSON output.
//
// A run starts a one-shot server (iperf3 -s -1 -J) on the server end, waits
// until it listens, runs the client, and samples system-wide CPU on both
// ends from the end of the omit period until the client exits (iperf3's own
// CPU figures cover its process only). Benchmark processes are pinned with
// taskset (Linux) or cpuset (FreeBSD) to each end's CPUs when set, and the
// server's socket is found with ss (Linux) or sockstat (FreeBSD).
package iperf3

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// BasePort is the first port the runner picks; concurrent runs in one
// process get distinct ports from BasePort up.
const BasePort = 5201

const (
	portSpan = 1000
	// pollInterval is how often the server's listening socket is looked
	// for: each poll is one command on the server's end (ss, sockstat),
	// and each one missed adds up to this much to every run's set-up
	// (BenchmarkApplyOverhead).
	pollInterval = 10 * time.Millisecond
	// clientSlack is how long the client may run beyond omit + duration
	// (connection setup, result exchange) before it is killed.
	clientSlack = 30 * time.Second
	// listenTimeout is the default ListenTimeout. Waiting ends as soon as
	// the server listens or exits, so a long bound costs time only when
	// it hangs; 5 s was too short for emulated guests on a loaded host
	// (QEMU TCG at load 28: 2 of 20 runs of kvm-vmxnet3-vs-virtio failed
	// "not listening after 5s", issue 33).
	listenTimeout = 30 * time.Second
)

var nextPort atomic.Uint32

// Runner runs iperf3. The zero value uses the defaults.
type Runner struct {
	// ListenTimeout bounds waiting for the server to listen (default 30 s).
	ListenTimeout time.Duration
	// ServerTimeout bounds waiting for the server to exit once the client
	// has finished (default 10 s).
	ServerTimeout time.Duration
	// ReadCPU samples per-CPU times on an end (default bench.CPUReader
	// for the end's OS: Linux /proc/stat, FreeBSD kern.cp_times).
	ReadCPU func(context.Context, guest.Transport) (map[int]bench.CPUTimes, error)
}

var _ bench.StartGater = (*Runner)(nil)

// GatesStart reports that Run waits at the context's start gate
// (bench.AwaitStart) once the server listens.
func (r *Runner) GatesStart() bool { return true }

type outcome struct {
	res guest.Result
	err error
}

// Run runs one iperf3 test from client to server with parameters p.
// Raw.Start and Raw.End are when the client started and exited; the CPU
// figures cover the end of the omit period to the client's exit.
func (r *Runner) Run(ctx context.Context, server, client bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("iperf3 %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	port := p.Port
	if port == 0 {
		var err error
		if port, err = freePort(ctx, server); err != nil {
			return bench.Raw{}, err
		}
	}

	srvCtx, srvCancel := context.WithCancel(ctx)
	defer srvCancel()
	srvDone := make(chan outcome, 1)
	srvCmd := guest.Cmd{Argv: server.Pin(ServerArgv(server.Addr, port, p)...)}
	go func() {
		res, err := server.T.Run(srvCtx, srvCmd)
		srvDone <- outcome{res, err}
	}()
	if err := r.waitListening(ctx, server, srvCmd, port, srvDone); err != nil {
		srvCancel()
		<-srvDone // the server process is gone before Run returns
		return bench.Raw{}, err
	}

	// Concurrent flows' clients start together, once every server listens.
	if err := bench.AwaitStart(ctx); err != nil {
		srvCancel()
		<-srvDone
		return bench.Raw{}, err
	}
	s := r.startSampling(ctx, server, client, p.Omit)
	cliCtx, cliCancel := context.WithTimeout(ctx, p.Omit+p.Duration+clientSlack)
	defer cliCancel()
	cliCmd := guest.Cmd{Argv: client.Pin(ClientArgs(server.Addr, port, p)...)}
	raw := bench.Raw{Start: time.Now(), ServerArgv: srvCmd.Argv, ClientArgv: cliCmd.Argv}
	cres, cerr := client.T.Run(cliCtx, cliCmd)
	raw.End = time.Now()
	raw.Client = string(cres.Stdout)
	srvCPU, cliCPU, serr := s.stop(ctx)
	if err := failure(client.T, cliCmd, cres, cerr); err != nil {
		srvCancel()
		<-srvDone
		return raw, err
	}

	timeout := r.ServerTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	var so outcome
	select {
	case so = <-srvDone:
	case <-time.After(timeout):
		srvCancel()
		so = <-srvDone
		return raw, fmt.Errorf("%s: iperf3 server on port %d did not exit %v after the client: %w", server.T.Name(), port, timeout, so.err)
	}
	raw.Server = string(so.res.Stdout)
	if err := failure(server.T, srvCmd, so.res, so.err); err != nil {
		return raw, err
	}
	if serr != nil {
		return raw, fmt.Errorf("cpu sampling: %w", serr)
	}
	raw.ServerCPU = bench.Usage(srvCPU[0], srvCPU[1], server.CPUs)
	raw.ClientCPU = bench.Usage(cliCPU[0], cliCPU[1], client.CPUs)
	return raw, nil
}

// freePort picks the next port from BasePort up that nothing listens on in
// the server's network stack.
func freePort(ctx context.Context, ep bench.Endpoint) (int, error) {
	for range 50 {
		port := BasePort + int(nextPort.Add(1)-1)%portSpan
		busy, err := bench.Listening(ctx, ep, port)
		if err != nil {
			return 0, err
		}
		if !busy {
			return port, nil
		}
	}
	return 0, fmt.Errorf("%s: no free port from %d", ep.T.Name(), BasePort)
}

// waitListening polls until the server listens on port, fails when the
// server exits first (its outcome is put back on srvDone) or the timeout
// passes.
func (r *Runner) waitListening(ctx context.Context, ep bench.Endpoint, srvCmd guest.Cmd, port int, srvDone chan outcome) error {
	t := ep.T
	timeout := r.ListenTimeout
	if timeout == 0 {
		timeout = listenTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		ok, err := bench.Listening(ctx, ep, port)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case o := <-srvDone:
			srvDone <- o
			if o.err == nil {
				return fmt.Errorf("%s: iperf3 server exited before listening on port %d", t.Name(), port)
			}
			return failure(t, srvCmd, o.res, o.err)
		case <-deadline.C:
			return fmt.Errorf("%s: iperf3 server not listening on port %d after %v", t.Name(), port, timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// failure is the error of a finished iperf3 command, nil if it succeeded:
// iperf3 -J reports errors in the JSON "error" field on stdout (not
// stderr), and 3.12's client exits 0 even when it could not connect.
func failure(t guest.Transport, c guest.Cmd, res guest.Result, err error) error {
	var v struct {
		Error string `json:"error"`
	}
	msg := ""
	if json.Unmarshal(res.Stdout, &v) == nil {
		msg = v.Error
	}
	switch {
	case err != nil && msg != "":
		return fmt.Errorf("%w: iperf3: %s", err, msg)
	case err != nil:
		return err
	case msg != "":
		return fmt.Errorf("%s: %s: iperf3: %s", t.Name(), c, msg)
	}
	return nil
}
