// Package sockperf runs sockperf (github.com/Mellanox/sockperf) between two
// guests and parses its summary: round-trip latency of single messages in
// ping-pong mode and under load (avg, std-dev and the percentiles sockperf
// computes from every observation), or throughput.
//
// A run starts `sockperf server -i ADDR -p PORT [--tcp]` on the server end
// (stopped when the client is done), waits until it listens (TCP) or has
// bound its UDP socket, runs the client on the client end and samples
// system-wide CPU on both ends around it.
package sockperf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// BasePort is the first port the runner picks (sockperf's default is 11111).
const BasePort = 11111

// Runner runs sockperf. The zero value uses the defaults.
type Runner struct {
	// ListenTimeout bounds waiting for the server to listen (default 5 s).
	ListenTimeout time.Duration
	// ReadCPU samples per-CPU times on an end (default bench.CPUReader for the end's OS).
	ReadCPU func(context.Context, guest.Transport) (map[int]bench.CPUTimes, error)
}

var _ bench.Runner = (*Runner)(nil)

// Run runs one sockperf test from client to server with parameters p.
func (r *Runner) Run(ctx context.Context, server, client bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("sockperf %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	port, err := bench.PortFor(ctx, server, p.Port, BasePort)
	if err != nil {
		return bench.Raw{}, err
	}
	timeout := r.ListenTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	srvCmd := guest.Cmd{Argv: server.Pin(ServerArgs(server.Addr, port, p)...)}
	srv, err := startServer(ctx, server, srvCmd, port, p.UDP, timeout)
	if err != nil {
		return bench.Raw{}, err
	}
	defer srv.Stop()
	before, errB := bench.SampleBoth(ctx, r.ReadCPU, server, client)
	cctx, cancel := context.WithTimeout(ctx, p.Duration+30*time.Second)
	defer cancel()
	cmd := guest.Cmd{Argv: client.Pin(ClientArgs(server.Addr, port, p)...)}
	raw := bench.Raw{Start: time.Now(), ServerArgv: srvCmd.Argv, ClientArgv: cmd.Argv}
	res, cerr := client.T.Run(cctx, cmd)
	raw.End = time.Now()
	// sockperf prints everything, its errors too, to stdout (src/defs.h:
	// log_msg and log_err are printf); stderr follows for what the loader
	// or the shell says (a missing library, command not found).
	raw.Client = string(res.Stdout) + string(res.Stderr)
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

// startServer starts the server and waits until it takes messages: a
// listening socket for TCP, a bound UDP socket for UDP (sockperf's
// default, for which bench.Listening, a TCP check, never succeeds).
func startServer(ctx context.Context, ep bench.Endpoint, cmd guest.Cmd, port int, udp bool, timeout time.Duration) (*bench.Server, error) {
	if !udp {
		return bench.StartServer(ctx, ep, cmd, port, timeout)
	}
	check, ok := UDPBoundCmd(ep.OS, port)
	if !ok {
		return nil, fmt.Errorf("%s: cannot tell when a UDP server is ready there (its listening-socket check %v has no TCP option to turn into UDP); use tcp = true",
			ep.T.Name(), bench.ListenCmd(ep.OS, port).Argv)
	}
	ready := func(ctx context.Context) (bool, error) {
		res, err := ep.T.Run(ctx, check)
		for _, line := range strings.Split(string(res.Stdout), "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && (len(f) < 2 || f[0] != "USER" || f[1] != "COMMAND") {
				return true, err
			}
		}
		return false, err
	}
	return bench.StartServerUntil(ctx, ep, cmd, ready, fmt.Sprintf("receiving on UDP port %d", port), timeout)
}

// UDPBoundCmd prints one line per UDP socket bound to port on os (after
// sockstat's header line on FreeBSD, which the caller skips, as
// bench.Listening does): the OS's TCP listening-socket check
// (guest.Processes.Listen, bench.ListenCmd) asked for UDP instead. Linux's
// is `ss -Hltn sport = :PORT` and ss(8) takes -u for -t (an unconnected UDP
// socket is in its listening set, state UNCONN); FreeBSD's is `sockstat
// -46l -P tcp -p PORT` and sockstat(1) takes -P udp (-l keeps sockets
// without a foreign port, usr.bin/sockstat/sockstat.c gather_inet, which a
// UDP server's is). Deriving it keeps OS names out of bench (guest's
// TestOSNamesStayInGuest); ok is false when the check has neither option.
func UDPBoundCmd(os string, port int) (guest.Cmd, bool) {
	argv := slices.Clone(bench.ListenCmd(os, port).Argv)
	ok := false
	for i, a := range argv {
		switch a {
		case "-Hltn":
			argv[i], ok = "-Hlun", true
		case "tcp":
			if i > 0 && argv[i-1] == "-P" {
				argv[i], ok = "udp", true
			}
		}
	}
	return guest.Cmd{Argv: argv}, ok
}
