package iperf2

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"time"

	"github.com/lab-bench/lab/bench"
)

// MaxParallel bounds -P.
const MaxParallel = 128

var (
	sizeRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[KMGkmg]?$`)
	ccRE   = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
)

// Validate checks p and the addresses before they reach a command line.
func Validate(serverAddr string, p bench.Params) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if _, err := netip.ParseAddr(serverAddr); err != nil {
		bad("server address %q: not an IP address", serverAddr)
	}
	if p.Bind != "" {
		if a, err := netip.ParseAddr(p.Bind); err != nil {
			bad("bind address %q: not an IP address", p.Bind)
		} else if p.IPv6() && !a.Is6() {
			bad("bind address %s is IPv4, but the run goes over IPv6 (ip_version %s)", p.Bind, p.IPVersion)
		}
	}
	if p.Duration < time.Second || p.Duration%time.Second != 0 {
		bad("duration %v: want whole seconds, at least 1s", p.Duration)
	}
	if p.Interval < 0 || p.Interval%time.Second != 0 {
		bad("interval %v: want whole seconds", p.Interval)
	}
	if p.Parallel < 0 || p.Parallel > MaxParallel {
		bad("parallel %d: out of range 1..%d", p.Parallel, MaxParallel)
	}
	if p.Length != "" && !sizeRE.MatchString(p.Length) {
		bad("length %q: want a size like 1M", p.Length)
	}
	if p.CongestionControl != "" && !ccRE.MatchString(p.CongestionControl) {
		bad("congestion control %q: not an algorithm name", p.CongestionControl)
	}
	if p.Dualtest && p.Tradeoff {
		bad("dualtest and tradeoff exclude each other")
	}
	if p.UDP || p.Bitrate != "" || p.Reverse || p.Omit != 0 {
		bad("the iperf2 runner measures TCP only: udp, bitrate, reverse and omit are not supported")
	}
	if p.Bounceback && (p.Dualtest || p.Tradeoff || p.Parallel > 1) {
		bad("bounceback runs one connection in one direction: no dualtest, tradeoff or parallel")
	}
	if p.Port < 0 || p.Port > 65535 {
		bad("port %d: out of range", p.Port)
	}
	if err := bench.CheckFamily(serverAddr, p); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ServerArgv is the server command of a run with p: ServerArgs, and -V
// ("Set the domain to IPv6", iperf(1); 2.1 finds the family from -B's
// address by itself, 2.0 needs it) when the run goes over IPv6.
func ServerArgv(addr string, port int, p bench.Params) []string {
	argv := ServerArgs(addr, port)
	if p.IPv6() {
		argv = append(argv, "-V")
	}
	return argv
}

// ServerArgs is the server command: iperf -s bound to addr on port, with
// enhanced reports. It runs until the runner stops it.
func ServerArgs(addr string, port int) []string {
	return []string{"iperf", "-s", "-p", strconv.Itoa(port), "-B", addr, "-e"}
}

// ClientArgs is the client command for p (validated by Validate), in the
// order seed 003 writes it: iperf [-B src] -c dst -p PORT -l LEN -t N -i N -e
// (then --bounceback --bounceback-period 0 for a request/response test).
func ClientArgs(serverAddr string, port int, p bench.Params) []string {
	var argv []string
	argv = append(argv, "iperf")
	if p.Bind != "" {
		argv = append(argv, "-B", p.Bind)
	}
	argv = append(argv, "-c", serverAddr, "-p", strconv.Itoa(port))
	if p.Length != "" {
		argv = append(argv, "-l", p.Length)
	}
	argv = append(argv, "-t", strconv.Itoa(int(p.Duration/time.Second)))
	if p.Interval > 0 {
		argv = append(argv, "-i", strconv.Itoa(int(p.Interval/time.Second)))
	}
	if p.Enhanced || p.Bounceback {
		argv = append(argv, "-e")
	}
	if p.Bounceback {
		// Period 0: the next request as soon as the reply is in (the
		// default sends bursts of 10 once a second), so transactions/s
		// is the rate the path sustains, as netperf TCP_RR measures it.
		argv = append(argv, "--bounceback", "--bounceback-period", "0")
	}
	if p.Parallel > 1 {
		argv = append(argv, "-P", strconv.Itoa(p.Parallel))
	}
	if p.Dualtest {
		argv = append(argv, "-d")
	}
	if p.Tradeoff {
		argv = append(argv, "-r")
	}
	if p.CongestionControl != "" {
		argv = append(argv, "-Z", p.CongestionControl)
	}
	if p.IPv6() {
		argv = append(argv, "-V") // -c and -B take bare literals
	}
	return argv
}
