package bench

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// The operating systems an Endpoint can run, spelled as templates spell
// them (spec template os).
const (
	Linux   = "linux"
	FreeBSD = "freebsd"
)

// ListenCmd is the command printing one line per TCP socket listening on
// port in an end's network stack (after a header line on some OSes, which
// Listening skips), and nothing when none does: the OS's
// guest.Processes.Listen (Linux ss -Hltn, FreeBSD sockstat -46l).
func ListenCmd(os string, port int) guest.Cmd {
	return guest.For(os).Processes.Listen(port)
}

// Listening reports whether a TCP socket listens on port on ep
// (ListenCmd for ep's OS).
func Listening(ctx context.Context, ep Endpoint, port int) (bool, error) {
	return anySocket(ctx, ep, ListenCmd(ep.OS, port))
}

// BoundUDP reports whether a UDP socket is bound to port on ep (the OS's
// guest.Processes.ListenUDP); ok is false when the OS has no such check.
func BoundUDP(ctx context.Context, ep Endpoint, port int) (bound, ok bool, err error) {
	list := guest.For(ep.OS).Processes.ListenUDP
	if list == nil {
		return false, false, nil
	}
	bound, err = anySocket(ctx, ep, list(port))
	return bound, true, err
}

// anySocket runs a socket listing (ListenCmd, ListenUDP) on ep and reports
// whether it printed a socket: a line that is not sockstat's header.
func anySocket(ctx context.Context, ep Endpoint, cmd guest.Cmd) (bool, error) {
	res, err := ep.T.Run(ctx, cmd)
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		if strings.TrimSpace(line) != "" && !headerLine(line) {
			return true, err
		}
	}
	return false, err
}

// headerLine reports whether line is sockstat's column header. display()
// in usr.bin/sockstat/sockstat.c has printed it as
// printf("%-8s %-10s …", "USER", "COMMAND", "PID", "FD", "PROTO", …) in
// every release; without -q it is the first line, also when no socket
// matches. ss -H never prints one, and no user is called USER with a
// command called COMMAND.
func headerLine(line string) bool {
	f := strings.Fields(line)
	return len(f) >= 2 && f[0] == "USER" && f[1] == "COMMAND"
}

// Pin prefixes argv with the command pinning it to cpus on os, when cpus
// is non-empty, so that pinning works over any transport: the OS's
// guest.Processes.Pin (Linux `taskset -c LIST`, FreeBSD `cpuset -l LIST`).
func Pin(os string, cpus []int, argv ...string) []string {
	if len(cpus) == 0 {
		return argv
	}
	list := make([]string, len(cpus))
	for i, c := range cpus {
		list[i] = strconv.Itoa(c)
	}
	return append(guest.For(os).Processes.Pin(strings.Join(list, ",")), argv...)
}

// Pin is argv pinned to ep's CPUs (Pin for ep's OS).
func (ep Endpoint) Pin(argv ...string) []string { return Pin(ep.OS, ep.CPUs, argv...) }

// CPUReader is the per-CPU time sampler for os (guest.CPU.Times: Linux
// /proc/stat, FreeBSD kern.cp_times) and, when the OS is not known,
// ReadCPU (which tries each OS's way in turn).
func CPUReader(os string) func(context.Context, guest.Transport) (map[int]CPUTimes, error) {
	if d, ok := guest.Lookup(os); ok && os != "" && d.CPU.Times != nil {
		return d.CPU.Times
	}
	return ReadCPU
}

// ReadMHz is ep's CPU clock in MHz, 0 when it cannot be read: the OS's
// guest.CPU.MHz (the mean "cpu MHz" of /proc/cpuinfo on Linux, `sysctl -n
// hw.clockrate` on FreeBSD).
func ReadMHz(ctx context.Context, ep Endpoint) (float64, error) {
	return guest.For(ep.OS).CPU.MHz(ctx, ep.T)
}

// SampleCPU reads ep's per-CPU times with read or, when read is nil, with
// CPUReader for ep's OS.
func SampleCPU(ctx context.Context, read func(context.Context, guest.Transport) (map[int]CPUTimes, error), ep Endpoint) (map[int]CPUTimes, error) {
	if read == nil {
		read = CPUReader(ep.OS)
	}
	return read(ctx, ep.T)
}

// SampleBoth is SampleCPU on the server and then the client: the two
// readings (server first) and both ends' errors joined.
func SampleBoth(ctx context.Context, read func(context.Context, guest.Transport) (map[int]CPUTimes, error), server, client Endpoint) ([2]map[int]CPUTimes, error) {
	var out [2]map[int]CPUTimes
	var errS, errC error
	out[0], errS = SampleCPU(ctx, read, server)
	out[1], errC = SampleCPU(ctx, read, client)
	return out, errors.Join(errS, errC)
}
