// Package netperf runs netperf (TCP_STREAM, TCP_RR, UDP_STREAM) between two
// guests and parses its output: OMNI keyval output (-k selectors) for new
// runs, the classic TCP_STREAM table for published output (seed 004).
//
// A run starts `netserver -D -p PORT` on the server end (stopped when the
// client is done), runs netperf on the client end and samples system-wide
// CPU on both ends around it. netperf is not packaged everywhere (Debian 12
// has it only in non-free); a missing binary is reported naming the guest.
package netperf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// BasePort is the first control port the runner picks (netperf's is 12865).
const BasePort = 12865

// Runner runs netperf. The zero value uses the defaults.
type Runner struct {
	// ListenTimeout bounds waiting for netserver to listen (default 5 s).
	ListenTimeout time.Duration
	// ReadCPU samples per-CPU times on an end (default bench.CPUReader for the end's OS: /proc/stat on Linux, kern.cp_times on FreeBSD).
	ReadCPU func(context.Context, guest.Transport) (map[int]bench.CPUTimes, error)
}

var _ bench.StartGater = (*Runner)(nil)

// GatesStart reports that Run waits at the context's start gate
// (bench.AwaitStart) once netserver listens.
func (r *Runner) GatesStart() bool { return true }

// Run runs one netperf test from client to server with parameters p.
func (r *Runner) Run(ctx context.Context, server, client bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if p.Loopback {
		server.Addr = p.LoopbackAddr()
		client = bench.Endpoint{T: server.T, Addr: server.Addr, CPUs: server.CPUs, OS: server.OS}
	}
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("netperf %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	for _, end := range []struct {
		t   guest.Transport
		bin string
	}{{server.T, "netserver"}, {client.T, "netperf"}} {
		if err := haveBinary(ctx, end.t, end.bin); err != nil {
			return bench.Raw{}, err
		}
	}
	port, err := bench.PortFor(ctx, server, p.Port, BasePort)
	if err != nil {
		return bench.Raw{}, err
	}
	timeout := r.ListenTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	srvCmd := guest.Cmd{Argv: server.Pin(ServerArgv(port, p)...)}
	srv, err := bench.StartServer(ctx, server, srvCmd, port, timeout)
	if err != nil {
		return bench.Raw{}, err
	}
	defer srv.Stop()
	ver := version(ctx, client.T)
	// Concurrent flows' clients start together, once every server listens.
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	before, errB := bench.SampleBoth(ctx, r.ReadCPU, server, client)
	iterations := max(1, params(p).Confidence)
	cctx, cancel := context.WithTimeout(ctx, time.Duration(iterations)*p.Duration+30*time.Second)
	defer cancel()
	cmd := guest.Cmd{Argv: client.Pin(ClientArgs(server.Addr, port, p)...)}
	raw := bench.Raw{Version: ver, Start: time.Now(), ServerArgv: srvCmd.Argv, ClientArgv: cmd.Argv}
	res, cerr := client.T.Run(cctx, cmd)
	raw.End = time.Now()
	raw.Client = string(res.Stdout)
	after, errA := bench.SampleBoth(ctx, r.ReadCPU, server, client)
	raw.Server = srv.Stop()
	if cerr != nil {
		return raw, cerr
	}
	if err := errors.Join(errB, errA); err != nil {
		return raw, fmt.Errorf("cpu sampling: %w", err)
	}
	raw.ServerCPU = bench.Usage(before[0], after[0], server.CPUs)
	raw.ClientCPU = bench.Usage(before[1], after[1], client.CPUs)
	return raw, nil
}

// haveBinary fails with an installation hint when bin is not on t.
func haveBinary(ctx context.Context, t guest.Transport, bin string) error {
	_, err := t.Run(ctx, guest.Cmd{Argv: []string{"sh", "-c", "command -v " + bin}})
	if err == nil {
		return nil
	}
	var ce *guest.CommandError
	if errors.As(err, &ce) && ce.Err == nil {
		return fmt.Errorf("%s has no %s: install netperf there (FreeBSD: pkg install netperf; Debian: the netperf package is in "+
			"non-free, or build it from https://github.com/HewlettPackard/netperf)", t.Name(), bin)
	}
	return err
}

// versionArgv prints netperf's version (Program.Version).
var versionArgv = []string{"netperf", "-V"}

// version is the first line of `netperf -V` ("Netperf version 2.7.0").
func version(ctx context.Context, t guest.Transport) string {
	res, _ := t.Run(ctx, guest.Cmd{Argv: versionArgv})
	line, _, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), "\n")
	return strings.TrimSpace(line)
}
