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
	server, client = p.LoopbackEnds(server, client)
	if err := Validate(server.Addr, p); err != nil {
		return bench.Raw{}, fmt.Errorf("iperf %s -> %s: %w", client.T.Name(), server.T.Name(), err)
	}
	dur := p.Duration
	if p.Tradeoff {
		dur *= 2
	}
	slack := clientSlack
	if p.Bounceback {
		slack = bouncebackSlack
	}
	return bench.ClientServer{
		Server: server, Client: client, Port: p.Port, BasePort: BasePort,
		ServerArgv:    func(port int) []string { return ServerArgv(server.Addr, port, p) },
		ClientArgv:    func(port int) []string { return ClientArgs(server.Addr, port, p) },
		ListenTimeout: r.ListenTimeout, ClientTimeout: dur + slack,
		// Give the server a moment to print its totals before it is stopped.
		Linger: 100 * time.Millisecond,
		Gate:   true, Version: Version,
		ReadCPU: r.ReadCPU, CPUDetail: true,
		ServerFailure: func(t guest.Transport, _ guest.Cmd, _ guest.Result, err error) error { return missingBinary(err, t) },
		ClientFailure: func(t guest.Transport, c guest.Cmd, res guest.Result, err error) error {
			return runFailure(t, c, res, err, p)
		},
		ServerStderr: true,
	}.Run(ctx)
}

// runFailure is the error of the client's run: its own error, said more
// plainly where iperf 2's output explains it, or clientFailure.
func runFailure(t guest.Transport, c guest.Cmd, res guest.Result, err error, p bench.Params) error {
	if err == nil {
		return clientFailure(t, c, res, p)
	}
	if out := string(res.Stdout) + string(res.Stderr); p.Bounceback && strings.Contains(out, bbReadFailed) {
		return fmt.Errorf("%s: %s: iperf reported %q and then hung until killed (iperf 2.1.8 gives up on a reply that takes too long, which an overloaded host causes): %w",
			t.Name(), c, bbReadFailed, err)
	}
	return missingBinary(err, t)
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

// versionArgv prints iperf 2's version (Program.Version).
var versionArgv = []string{"iperf", "-v"}

// Version is `iperf -v` on a guest ("iperf version 2.1.8 (12 August 2022)
// pthreads"; iperf 2 prints it on stderr), "" when it cannot be read.
func Version(ctx context.Context, t guest.Transport) string {
	res, _ := t.Run(ctx, guest.Cmd{Argv: versionArgv})
	line, _, _ := strings.Cut(strings.TrimSpace(string(res.Stderr)+string(res.Stdout)), "\n")
	return strings.TrimSpace(line)
}
