package netperf

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
)

// Tests lists the netperf tests the runner knows.
var Tests = []string{"TCP_STREAM", "TCP_RR", "UDP_STREAM"}

// Selectors are the OMNI output selectors the runner asks for (-k); the
// names are netperf's own (netperf manual, "Omni Output Selectors").
var Selectors = []string{
	"THROUGHPUT", "THROUGHPUT_UNITS", "ELAPSED_TIME", "PROTOCOL",
	"LOCAL_CPU_UTIL", "REMOTE_CPU_UTIL", "LOCAL_SD", "REMOTE_SD",
	"LOCAL_SEND_SIZE", "LSS_SIZE_END", "RSR_SIZE_END",
	"TRANSACTION_RATE", "MIN_LATENCY", "MEAN_LATENCY", "P50_LATENCY", "P90_LATENCY", "P99_LATENCY", "MAX_LATENCY", "STDDEV_LATENCY",
	"LOCAL_TRANSPORT_RETRANS", "REMOTE_TRANSPORT_RETRANS",
	"CONFIDENCE_LEVEL", "CONFIDENCE_INTERVAL", "CONFIDENCE_ITERATION",
}

var sizeRE = regexp.MustCompile(`^[0-9]+[KMGkmg]?$`)

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
	np := params(p)
	known := false
	for _, t := range Tests {
		known = known || t == np.Test
	}
	if !known {
		bad("test %q: want one of %s", np.Test, strings.Join(Tests, ", "))
	}
	for name, v := range map[string]string{"send size": np.SendSize, "send buffer": np.SendBuffer, "receive buffer": np.RecvBuffer} {
		if v != "" && !sizeRE.MatchString(v) {
			bad("%s %q: want a size like 64K", name, v)
		}
	}
	if rr := np.RequestResponse; rr != "" {
		a, b, ok := strings.Cut(rr, ",")
		if !ok || !sizeRE.MatchString(a) || !sizeRE.MatchString(b) {
			bad("request_response %q: want REQ,RESP like 1,1", rr)
		}
	}
	if np.Confidence < 0 || np.Confidence == 1 || np.Confidence > 30 {
		bad("confidence %d: want 0 (off) or 2..30 iterations", np.Confidence)
	}
	if p.Parallel > 1 || p.Reverse || p.Length != "" {
		bad("netperf runs one stream per test: parallel, reverse and length (use send_size) are not supported")
	}
	if p.Port < 0 || p.Port > 65535 {
		bad("port %d: out of range", p.Port)
	}
	if err := bench.CheckFamily(serverAddr, p); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ServerArgv is the server command of a run with p: ServerArgs, and -6
// ("Use AF_INET6 (aka IPv6) addressing for the control and possibly data
// connections", netserver(1)) when the run goes over IPv6: without it
// netserver listens on IPv4 only.
func ServerArgv(port int, p bench.Params) []string {
	argv := ServerArgs(port)
	if p.IPv6() {
		argv = append(argv, "-6")
	}
	return argv
}

// params returns p's netperf parameters with defaults filled in.
func params(p bench.Params) bench.NetperfParams {
	np := bench.NetperfParams{}
	if p.Netperf != nil {
		np = *p.Netperf
	}
	if np.Test == "" {
		np.Test = "TCP_STREAM"
	}
	return np
}

// ServerArgs is the server command: netserver in the foreground (-D) on
// port (its control port).
func ServerArgs(port int) []string {
	return []string{"netserver", "-D", "-p", strconv.Itoa(port)}
}

// ClientArgs is the client command for p (validated by Validate):
//
//	netperf -H ADDR -p PORT -t TEST -l SECS -c -C [-I 99,5 -i N,3] -- -k SELECTORS [-m SIZE] [-s SND] [-S RCV] [-r REQ,RESP]
//
// -c/-C ask for local and remote CPU figures (and with them service
// demand); the test-specific -k turns on OMNI keyval output.
func ClientArgs(serverAddr string, port int, p bench.Params) []string {
	np := params(p)
	argv := []string{"netperf", "-H", serverAddr, "-p", strconv.Itoa(port), "-t", np.Test,
		"-l", strconv.Itoa(int(p.Duration / time.Second)), "-c", "-C"}
	if p.IPv6() {
		// A global option (netperf(1): "-6 Use AF_INET6 … for the control
		// and possibly data connections"); -H takes the bare literal, its
		// "name,family" form splits at the comma, not at a colon.
		argv = append(argv, "-6")
	}
	if np.Confidence > 0 {
		argv = append(argv, "-I", "99,5", "-i", strconv.Itoa(np.Confidence)+",3")
	}
	argv = append(argv, "--", "-k", strings.Join(Selectors, ","))
	if np.SendSize != "" {
		argv = append(argv, "-m", np.SendSize)
	}
	if np.SendBuffer != "" {
		argv = append(argv, "-s", np.SendBuffer)
	}
	if np.RecvBuffer != "" {
		argv = append(argv, "-S", np.RecvBuffer)
	}
	if np.RequestResponse != "" {
		argv = append(argv, "-r", np.RequestResponse)
	}
	return argv
}
