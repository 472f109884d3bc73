package sockperf

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/lab-bench/lab/bench"
)

// Modes are sockperf's client subcommands the runner knows.
var Modes = []string{"ping-pong", "under-load", "throughput"}

// Message size bounds, from sockperf's source (src/sockperf.cpp, the -m
// handling of every client mode, and src/defs.*): at least
// MIN_PAYLOAD_SIZE, the 14-byte message header (MsgHeader::EFFECTIVE_SIZE:
// a uint64 sequence number, a uint16 and a uint32), and for UDP at most
// MAX_PAYLOAD_SIZE, 65507 (the largest UDP payload over IPv4).
const (
	MinMessageSize = 14
	MaxMessageSize = 65507
)

// MaxMPS bounds mps: a rate no link lab drives reaches (sockperf caps its
// own at MPS_MAX, which depends on the burst size).
const MaxMPS = 10_000_000

// Validate checks p and the server address before they reach a command line.
func Validate(serverAddr string, p bench.Params) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if _, err := netip.ParseAddr(serverAddr); err != nil {
		bad("server address %q: not an IP address", serverAddr)
	}
	if p.Duration < time.Second || p.Duration%time.Second != 0 {
		bad("duration %v: want whole seconds, at least 1s", p.Duration)
	}
	sp := params(p)
	if !slices.Contains(Modes, sp.Mode) {
		bad("mode %q: want ping-pong, under-load or throughput", sp.Mode)
	}
	if sp.MPS < 0 || sp.MPS > MaxMPS {
		bad("mps %d: want 1..%d", sp.MPS, MaxMPS)
	}
	if sp.MPS != 0 && sp.Mode != "under-load" {
		bad("mps is under-load's message rate; mode is %q", sp.Mode)
	}
	if p.Length != "" {
		n, err := strconv.Atoi(p.Length)
		if err != nil || n < MinMessageSize || n > MaxMessageSize {
			bad("message size %q: want %d..%d bytes", p.Length, MinMessageSize, MaxMessageSize)
		}
	}
	if p.Parallel > 1 || p.Reverse || p.Bitrate != "" || p.Loopback {
		bad("sockperf runs one client per test: parallel, reverse, bitrate and loopback are not supported")
	}
	if p.Port < 0 || p.Port > 65535 {
		bad("port %d: out of range", p.Port)
	}
	return errors.Join(errs...)
}

// params returns p's sockperf parameters with defaults filled in.
func params(p bench.Params) bench.SockperfParams {
	sp := bench.SockperfParams{}
	if p.Sockperf != nil {
		sp = *p.Sockperf
	}
	if sp.Mode == "" {
		sp.Mode = "ping-pong"
	}
	return sp
}

// ServerArgs is the server command: `sockperf server -i ADDR -p PORT
// [--tcp]`, which serves until it is killed. UDP is sockperf's default
// ("--tcp  -Use TCP protocol (default UDP)", sockperf server --help).
func ServerArgs(addr string, port int, p bench.Params) []string {
	argv := []string{"sockperf", "server", "-i", addr, "-p", strconv.Itoa(port)}
	if !p.UDP {
		argv = append(argv, "--tcp")
	}
	return argv
}

// ClientArgs is the client command for p (validated by Validate):
//
//	sockperf MODE -i ADDR -p PORT -t SECS [-m SIZE] [--tcp] [--mps RATE] [--full-rtt]
//
// The latency modes always get --full-rtt ("--full-rtt  -Show results in
// round-trip-time instead of latency", sockperf ping-pong --help): without
// it sockperf divides every observation by two (src/client.cpp,
// client_statistics: `denominator = full_rtt ? 1 : 2`, pLat[counter] =
// rtt / denominator) and reports half the round trip, while a
// bench.LatencySample is the round trip, as netperf's and iperf 2's are.
func ClientArgs(serverAddr string, port int, p bench.Params) []string {
	sp := params(p)
	argv := []string{"sockperf", sp.Mode, "-i", serverAddr, "-p", strconv.Itoa(port),
		"-t", strconv.Itoa(int(p.Duration / time.Second))}
	if p.Length != "" {
		argv = append(argv, "-m", p.Length)
	}
	if !p.UDP {
		argv = append(argv, "--tcp")
	}
	if sp.MPS > 0 {
		argv = append(argv, "--mps", strconv.Itoa(sp.MPS))
	}
	if sp.Mode != "throughput" {
		argv = append(argv, "--full-rtt")
	}
	return argv
}
