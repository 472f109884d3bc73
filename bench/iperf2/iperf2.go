// Package iperf2 runs iperf 2 (the `iperf` of seeds 001, 003 and 004)
// between two guests and parses its human-readable output.
//
// A run starts `iperf -s` on the server end (one server per run, on a free
// port, stopped when the client is done), runs the client, and samples
// system-wide CPU (/proc/stat) and the CPU clock (/proc/cpuinfo) on both
// ends around the client. With Params.Loopback, server and client both run
// on the server end against 127.0.0.1 and the client end is not used.
package iperf2

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// BasePort is the first port the runner picks (iperf 2's default is 5001).
const BasePort = 5001

// clientSlack is how long the client may run beyond the duration (a -r
// test runs twice as long) before it is killed.
const clientSlack = 30 * time.Second

// bouncebackSlack is clientSlack for a bounceback test, whose client
// writes nothing after the duration: iperf 2.1.8's client sometimes
// reports bbReadFailed under load and then never exits.
const bouncebackSlack = 10 * time.Second

// bbReadFailed is what iperf 2.1.8 prints before such a hang.
const bbReadFailed = "bounce-back read failed"

// Runner runs iperf 2. The zero value uses the defaults.
type Runner struct {
	// ListenTimeout bounds waiting for the server to listen (default 5 s).
	ListenTimeout time.Duration
	// ReadCPU samples per-CPU times on an end (default bench.CPUReader for the end's OS: /proc/stat on Linux, kern.cp_times on FreeBSD).
	ReadCPU func(context.Context, guest.Transport) (map[int]bench.CPUTimes, error)
}

var _ bench.StartGater = (*Runner)(nil)

// GatesStart reports that Run waits at the context's start gate
// (bench.AwaitStart) once the server listens.
func (r *Runner) GatesStart() bool { return true }

// Run runs one iperf 2 test from client to server with parameters p.
func (r *Runner) Run(ctx context.Context, server, client bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if p.Loopback {
		server.Addr = p.LoopbackAddr()
		client = bench.Endpoint{T: server.T, Addr: server.Addr, CPUs: server.CPUs, OS: server.OS}
	}
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("iperf %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	port, err := bench.PortFor(ctx, server, p.Port, BasePort)
	if err != nil {
		return bench.Raw{}, err
	}
	timeout := r.ListenTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	srvCmd := guest.Cmd{Argv: server.Pin(ServerArgv(server.Addr, port, p)...)}
	srv, err := bench.StartServer(ctx, server, srvCmd, port, timeout)
	if err != nil {
		return bench.Raw{}, missingBinary(err, server.T)
	}
	defer srv.Stop()

	version := Version(ctx, client.T)
	// Concurrent flows' clients start together, once every server listens.
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	before, err := bench.SampleBoth(ctx, r.ReadCPU, server, client)
	if err != nil {
		return bench.Raw{}, fmt.Errorf("cpu sampling: %w", err)
	}
	dur := p.Duration
	if p.Tradeoff {
		dur *= 2
	}
	slack := clientSlack
	if p.Bounceback {
		slack = bouncebackSlack
	}
	cliCtx, cancel := context.WithTimeout(ctx, dur+slack)
	defer cancel()
	cliCmd := guest.Cmd{Argv: client.Pin(ClientArgs(server.Addr, port, p)...)}
	raw := bench.Raw{Version: version, Start: time.Now(), ServerArgv: srvCmd.Argv, ClientArgv: cliCmd.Argv}
	res, cerr := client.T.Run(cliCtx, cliCmd)
	raw.End = time.Now()
	raw.Client = string(res.Stdout)
	after, serr := bench.SampleBoth(ctx, r.ReadCPU, server, client)
	// Give the server a moment to print its totals before it is stopped.
	time.Sleep(100 * time.Millisecond)
	raw.Server = srv.Stop()
	if cerr != nil {
		if out := string(res.Stdout) + string(res.Stderr); p.Bounceback && strings.Contains(out, bbReadFailed) {
			return raw, fmt.Errorf("%s: %s: iperf reported %q and then hung until killed (iperf 2.1.8 gives up on a reply that takes too long, which an overloaded host causes): %w",
				client.T.Name(), cliCmd, bbReadFailed, cerr)
		}
		return raw, missingBinary(cerr, client.T)
	}
	if err := clientFailure(client.T, cliCmd, res, p); err != nil {
		return raw, err
	}
	if serr != nil {
		return raw, fmt.Errorf("cpu sampling: %w", serr)
	}
	raw.ServerCPU = bench.Usage(before[0], after[0], server.CPUs)
	raw.ClientCPU = bench.Usage(before[1], after[1], client.CPUs)
	raw.ServerCPU.NumCPUs, raw.ClientCPU.NumCPUs = numCPUs(server.CPUs, after[0]), numCPUs(client.CPUs, after[1])
	raw.ServerCPU.MHz, _ = bench.ReadMHz(ctx, server)
	raw.ClientCPU.MHz, _ = bench.ReadMHz(ctx, client)
	return raw, nil
}

// clientFailure is the error of a client that exited 0 without measuring:
// iperf 2 reports a refused connection or a congestion control it could
// not set on stderr only.
func clientFailure(t guest.Transport, c guest.Cmd, res guest.Result, p bench.Params) error {
	stderr := strings.TrimSpace(string(res.Stderr))
	out := ParseOutput(string(res.Stdout))
	if len(out.Reports) == 0 {
		msg := stderr
		if msg == "" {
			msg = describe(string(res.Stdout))
		}
		return fmt.Errorf("%s: %s: %w: %s", t.Name(), c, errNoReports, strings.ReplaceAll(msg, "\n", "; "))
	}
	if p.CongestionControl != "" && out.CongestionControl != p.CongestionControl {
		return fmt.Errorf("%s: %s: congestion control %s not in effect (iperf reports %q): %s",
			t.Name(), c, p.CongestionControl, out.CongestionControl, describe(stderr))
	}
	return nil
}

// missingBinary makes "executable file not found" name the guest and say
// how to install iperf 2.
func missingBinary(err error, t guest.Transport) error {
	var ce *guest.CommandError
	if errors.As(err, &ce) && (ce.ExitCode == 127 || strings.Contains(err.Error(), "executable file not found")) {
		return fmt.Errorf("%s has no iperf (iperf 2) binary: install it there (Debian/Ubuntu: apt-get install iperf; FreeBSD: pkg install iperf): %w", t.Name(), err)
	}
	return err
}

func numCPUs(pinned []int, all map[int]bench.CPUTimes) int {
	if len(pinned) > 0 {
		return len(pinned)
	}
	return len(all)
}

// versionArgv prints iperf 2's version (Program.Version).
var versionArgv = []string{"iperf", "-v"}

// Version is `iperf -v` on a guest ("iperf version 2.1.8 (12 August 2022)
// pthreads"; iperf 2 prints it on stderr), "" when it cannot be read.
func Version(ctx context.Context, t guest.Transport) string {
	res, _ := t.Run(ctx, guest.Cmd{Argv: versionArgv})
	line, _, _ := strings.Cut(strings.TrimSpace(string(res.Stderr)+string(res.Stdout)), "\n")
	return strings.TrimSpace(line)
}
