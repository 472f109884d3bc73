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
	run := bench.ClientServer{
		Server: server, Client: client, Port: p.Port, BasePort: BasePort,
		ServerArgv:    func(port int) []string { return ServerArgs(server.Addr, port, p) },
		ClientArgv:    func(port int) []string { return ClientArgs(server.Addr, port, p) },
		ListenTimeout: r.ListenTimeout, ClientTimeout: p.Duration + 30*time.Second,
		ReadCPU: r.ReadCPU,
		// sockperf prints everything, its errors too, to stdout (src/defs.h:
		// log_msg and log_err are printf); stderr follows for what the loader
		// or the shell says (a missing library, command not found).
		ClientStderr: true, ServerStderr: true,
	}
	if p.UDP {
		// The UDP server, sockperf's default, takes messages once its UDP
		// socket is bound (bench.BoundUDP, the OS's guest.Processes.ListenUDP).
		if _, ok := UDPBoundCmd(server.OS, 0); !ok {
			return bench.Raw{}, fmt.Errorf("%s: cannot tell when a UDP server is ready there (its OS driver has no UDP socket check); use tcp = true", server.T.Name())
		}
		run.Ready = func(ctx context.Context, ep bench.Endpoint, port int) (bool, error) {
			bound, _, err := bench.BoundUDP(ctx, ep, port)
			return bound, err
		}
		run.ReadyState = "receiving on UDP port %d"
	}
	return run.Run(ctx)
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
