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
// default: bench.BoundUDP, the OS's guest.Processes.ListenUDP).
func startServer(ctx context.Context, ep bench.Endpoint, cmd guest.Cmd, port int, udp bool, timeout time.Duration) (*bench.Server, error) {
	if !udp {
		return bench.StartServer(ctx, ep, cmd, port, timeout)
	}
	if _, ok := UDPBoundCmd(ep.OS, port); !ok {
		return nil, fmt.Errorf("%s: cannot tell when a UDP server is ready there (its OS driver has no UDP socket check); use tcp = true", ep.T.Name())
	}
	ready := func(ctx context.Context) (bool, error) {
		bound, _, err := bench.BoundUDP(ctx, ep, port)
		return bound, err
	}
	return bench.StartServerUntil(ctx, ep, cmd, ready, fmt.Sprintf("receiving on UDP port %d", port), timeout)
}

// UDPBoundCmd is the command that prints one line per UDP socket bound to
// port on os (its guest.Processes.ListenUDP: `ss -Hlun sport = :PORT` on
// Linux, `sockstat -46l -P udp -p PORT` on FreeBSD); ok is false when the
// OS has none.
func UDPBoundCmd(os string, port int) (guest.Cmd, bool) {
	list := guest.For(os).Processes.ListenUDP
	if list == nil {
		return guest.Cmd{}, false
	}
	return list(port), true
}
