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
	server, client = p.LoopbackEnds(server, client)
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
	iterations := max(1, params(p).Confidence)
	return bench.ClientServer{
		Server: server, Client: client, Port: p.Port, BasePort: BasePort,
		ServerArgv:    func(port int) []string { return ServerArgv(port, p) },
		ClientArgv:    func(port int) []string { return ClientArgs(server.Addr, port, p) },
		ListenTimeout: r.ListenTimeout, ClientTimeout: time.Duration(iterations)*p.Duration + 30*time.Second,
		Gate: true, Version: version,
		ReadCPU: r.ReadCPU, ServerStderr: true,
	}.Run(ctx)
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
