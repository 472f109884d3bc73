package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// FreeBSD keeps CPU times in the sysctls kern.cp_time (all CPUs summed)
// and kern.cp_times (per CPU, concatenated): five counters each, in
// stathz ticks — user, nice, sys, intr, idle. (This file is not named
// *_freebsd.go: that suffix would make it a FreeBSD-only build file.)

// cpStates is the number of counters per CPU (CPUSTATES).
const cpStates = 5

// ReadCPU samples per-CPU times on any guest lab drives: /proc/stat
// (Linux) and, when that file does not exist, `sysctl -n kern.cp_times`
// (FreeBSD). On Linux it runs exactly what ReadCPUStat runs. A lost
// connection is returned as is, never retried as another OS.
func ReadCPU(ctx context.Context, t guest.Transport) (map[int]CPUTimes, error) {
	m, err := ReadCPUStat(ctx, t)
	var ce *guest.CommandError
	if err == nil || !errors.As(err, &ce) || ce.Err != nil || ce.ExitCode <= 0 {
		return m, err
	}
	m, err2 := ReadCPTimes(ctx, t)
	if err2 != nil {
		return nil, fmt.Errorf("%w (and kern.cp_times: %v)", err, err2)
	}
	return m, nil
}

// ReadCPTimes reads per-CPU times on a FreeBSD guest
// (`sysctl -n kern.cp_times`).
func ReadCPTimes(ctx context.Context, t guest.Transport) (map[int]CPUTimes, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"sysctl", "-n", "kern.cp_times"}})
	if err != nil {
		return nil, err
	}
	m, err := ParseCPTimes(string(res.Stdout))
	if err != nil {
		return nil, fmt.Errorf("%s: kern.cp_times: %w", t.Name(), err)
	}
	return m, nil
}

// ParseCPTimes parses kern.cp_times ("u n s i idle" per CPU, all on one
// line) into per-CPU times: intr is counted as IRQ (FreeBSD does not split
// soft interrupts out; its netisr and ithreads run as sys or intr).
// kern.cp_time, the five-counter aggregate, parses as CPU 0.
func ParseCPTimes(text string) (map[int]CPUTimes, error) {
	f := strings.Fields(text)
	if len(f) == 0 || len(f)%cpStates != 0 {
		return nil, fmt.Errorf("want a multiple of %d counters, got %d", cpStates, len(f))
	}
	m := map[int]CPUTimes{}
	for cpu := 0; cpu*cpStates < len(f); cpu++ {
		var v [cpStates]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[cpu*cpStates+i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cpu %d: %w", cpu, err)
			}
			v[i] = n
		}
		m[cpu] = CPUTimes{User: v[0], Nice: v[1], System: v[2], IRQ: v[3], Idle: v[4]}
	}
	return m, nil
}
