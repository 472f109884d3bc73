package iperf3

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"time"

	"github.com/lab-bench/lab/bench"
)

// MaxParallel is iperf3's limit on -P.
const MaxParallel = 128

var (
	sizeRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[KMGTkmgt]?$`)
	ccRE   = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
)

// Validate checks p and the server address before they reach a command
// line. iperf3 takes whole seconds for -t and --omit.
func Validate(serverAddr string, p bench.Params) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if _, err := netip.ParseAddr(serverAddr); err != nil {
		bad("server address %q: not an IP address", serverAddr)
	}
	if p.Duration < time.Second || p.Duration%time.Second != 0 {
		bad("duration %v: want whole seconds, at least 1s", p.Duration)
	}
	if p.Omit < 0 || p.Omit%time.Second != 0 {
		bad("omit %v: want whole seconds", p.Omit)
	}
	if p.Parallel < 0 || p.Parallel > MaxParallel {
		bad("parallel %d: out of range 1..%d", p.Parallel, MaxParallel)
	}
	if p.Length != "" && !sizeRE.MatchString(p.Length) {
		bad("length %q: want a size like 128K", p.Length)
	}
	if p.Bitrate != "" && !sizeRE.MatchString(p.Bitrate) {
		bad("bitrate %q: want a rate like 100M", p.Bitrate)
	}
	if p.CongestionControl != "" && !ccRE.MatchString(p.CongestionControl) {
		bad("congestion control %q: not an algorithm name", p.CongestionControl)
	}
	if p.Port < 0 || p.Port > 65535 {
		bad("port %d: out of range", p.Port)
	}
	if o := p.Iperf3; o != nil {
		if o.Window != "" && !sizeRE.MatchString(o.Window) {
			bad("window %q: want a size like 256K", o.Window)
		}
		if o.FQRate != "" && !sizeRE.MatchString(o.FQRate) {
			bad("fq_rate %q: want a rate like 1G", o.FQRate)
		}
		if o.DSCP != "" && !(dscpMatcher{}).MatchString(o.DSCP) {
			bad("dscp %q: want 0-63 or a DSCP name", o.DSCP)
		}
		if o.Bidir && p.Reverse {
			bad("bidir and reverse: iperf3 cannot be both reverse and bidirectional")
		}
	}
	if err := bench.CheckFamily(serverAddr, p); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ServerArgv is the server command of a run with p: ServerArgs, and -6
// ("only use IPv6", iperf3(1)) when the run goes over IPv6. -B takes the
// bare IPv6 literal (no brackets: iperf3 never joins host and port).
func ServerArgv(addr string, port int, p bench.Params) []string {
	argv := ServerArgs(addr, port)
	if p.IPv6() {
		argv = append(argv, "-6")
	}
	return argv
}

// ServerArgs is the server command: one test, bound to addr, JSON output.
func ServerArgs(addr string, port int) []string {
	return []string{"iperf3", "-s", "-1", "-p", strconv.Itoa(port), "-B", addr, "-J"}
}

// ClientArgs is the client command for p (validated by Validate).
func ClientArgs(serverAddr string, port int, p bench.Params) []string {
	argv := []string{"iperf3", "-c", serverAddr, "-p", strconv.Itoa(port), "-J",
		"-t", secs(p.Duration)}
	if p.Omit > 0 {
		argv = append(argv, "--omit", secs(p.Omit))
	}
	argv = append(argv, "-P", strconv.Itoa(max(1, p.Parallel)))
	if p.Reverse {
		argv = append(argv, "-R")
	}
	if p.Length != "" {
		argv = append(argv, "-l", p.Length)
	}
	if p.UDP {
		argv = append(argv, "-u")
	}
	if p.Bitrate != "" {
		argv = append(argv, "-b", p.Bitrate)
	}
	if p.CongestionControl != "" {
		argv = append(argv, "-C", p.CongestionControl)
	}
	if p.IPv6() {
		argv = append(argv, "-6") // -c takes the bare literal
	}
	return append(argv, ownArgs(p.Iperf3)...)
}

// ownArgs are the client options of iperf3's own parameters.
func ownArgs(o *bench.Iperf3Params) []string {
	if o == nil {
		return nil
	}
	var argv []string
	if o.Window != "" {
		argv = append(argv, "-w", o.Window)
	}
	if o.MSS > 0 {
		argv = append(argv, "-M", strconv.Itoa(o.MSS))
	}
	if o.NoDelay {
		argv = append(argv, "-N")
	}
	if o.ZeroCopy {
		argv = append(argv, "-Z")
	}
	if o.DSCP != "" {
		argv = append(argv, "--dscp", o.DSCP)
	}
	if o.FQRate != "" {
		argv = append(argv, "--fq-rate", o.FQRate)
	}
	if o.Bidir {
		argv = append(argv, "--bidir")
	}
	return argv
}

func secs(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
