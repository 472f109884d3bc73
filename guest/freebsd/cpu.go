package freebsd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// FreeBSD keeps CPU times in the sysctls kern.cp_time (all CPUs summed)
// and kern.cp_times (per CPU, concatenated): five counters each, in
// stathz ticks — user, nice, sys, intr, idle.

// cpStates is the number of counters per CPU (CPUSTATES).
const cpStates = 5

// ReadCPTimes reads per-CPU times on a FreeBSD guest
// (`sysctl -n kern.cp_times`).
func ReadCPTimes(ctx context.Context, t guest.Transport) (map[int]guest.CPUTimes, error) {
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
func ParseCPTimes(text string) (map[int]guest.CPUTimes, error) {
	f := strings.Fields(text)
	if len(f) == 0 || len(f)%cpStates != 0 {
		return nil, fmt.Errorf("want a multiple of %d counters, got %d", cpStates, len(f))
	}
	m := map[int]guest.CPUTimes{}
	for cpu := 0; cpu*cpStates < len(f); cpu++ {
		var v [cpStates]uint64
		for i := range v {
			n, err := strconv.ParseUint(f[cpu*cpStates+i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cpu %d: %w", cpu, err)
			}
			v[i] = n
		}
		m[cpu] = guest.CPUTimes{User: v[0], Nice: v[1], System: v[2], IRQ: v[3], Idle: v[4]}
	}
	return m, nil
}

// ReadClockRate is the CPU clock in MHz, 0 when it cannot be read:
// `sysctl -n hw.clockrate` (sys/x86/x86/identcpu.c, "CPU instruction clock
// rate", an int in MHz).
func ReadClockRate(ctx context.Context, t guest.Transport) (float64, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"sysctl", "-n", "hw.clockrate"}})
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(res.Stdout)), 64)
	if err != nil || f < 0 {
		return 0, nil
	}
	return f, nil
}
