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
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// BasePort is the first port the runner picks; concurrent runs in one
// process get distinct ports from BasePort up.
const BasePort = 5201

const (
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

// Run runs one iperf3 test from client to server with parameters p.
// Raw.Start and Raw.End are when the client started and exited; the CPU
// figures cover the end of the omit period to the client's exit.
func (r *Runner) Run(ctx context.Context, server, client bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("iperf3 %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	return bench.ClientServer{
		Server: server, Client: client, Port: p.Port, BasePort: BasePort,
		ServerArgv:    func(port int) []string { return ServerArgv(server.Addr, port, p) },
		ClientArgv:    func(port int) []string { return ClientArgs(server.Addr, port, p) },
		ListenTimeout: cmp.Or(r.ListenTimeout, listenTimeout), Poll: pollInterval,
		ClientTimeout: p.Omit + p.Duration + clientSlack,
		// iperf3 -s -1 exits once its client is done, with its JSON.
		OneShot: cmp.Or(r.ServerTimeout, 10*time.Second),
		Gate:    true,
		ReadCPU: r.ReadCPU, CPU: bench.CPUWindow{Background: true, Delay: p.Omit},
		ServerFailure: failure, ClientFailure: failure,
	}.Run(ctx)
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
