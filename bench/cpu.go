package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// CPUTimes are one CPU's cumulative times from /proc/stat, in clock ticks.
// (User already includes guest time, Nice guest_nice.)
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is the sum of all fields.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// ReadCPUStat reads per-CPU times on a Linux guest (`cat /proc/stat`).
func ReadCPUStat(ctx context.Context, t guest.Transport) (map[int]CPUTimes, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"cat", "/proc/stat"}})
	if err != nil {
		return nil, err
	}
	m, err := ParseCPUStat(string(res.Stdout))
	if err != nil {
		return nil, fmt.Errorf("%s: /proc/stat: %w", t.Name(), err)
	}
	return m, nil
}

// ParseCPUStat parses the per-CPU lines ("cpuN user nice system idle iowait
// irq softirq steal ...") of /proc/stat; the aggregate "cpu" line is skipped.
func ParseCPUStat(text string) (map[int]CPUTimes, error) {
	m := map[int]CPUTimes{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil {
			return nil, fmt.Errorf("bad line %q", line)
		}
		if len(f) < 9 {
			return nil, fmt.Errorf("%s: want 8 fields, got %d", f[0], len(f)-1)
		}
		var v [8]uint64
		for i := range v {
			if v[i], err = strconv.ParseUint(f[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("%s: %w", f[0], err)
			}
		}
		m[n] = CPUTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no per-CPU lines")
	}
	return m, nil
}

// Usage is the CPU use between two samples over cpus (all CPUs present in
// both samples when cpus is empty), in percent of those CPUs' time. Busy is
// everything but idle, iowait and steal; User includes nice.
func Usage(before, after map[int]CPUTimes, cpus []int) CPUUsage {
	sel := cpus
	if len(sel) == 0 {
		for n := range after {
			sel = append(sel, n)
		}
	}
	var d CPUTimes
	for _, n := range sel {
		b, okb := before[n]
		a, oka := after[n]
		if !okb || !oka {
			continue
		}
		d.User += sub(a.User, b.User)
		d.Nice += sub(a.Nice, b.Nice)
		d.System += sub(a.System, b.System)
		d.Idle += sub(a.Idle, b.Idle)
		d.IOWait += sub(a.IOWait, b.IOWait)
		d.IRQ += sub(a.IRQ, b.IRQ)
		d.SoftIRQ += sub(a.SoftIRQ, b.SoftIRQ)
		d.Steal += sub(a.Steal, b.Steal)
	}
	u := CPUUsage{CPUs: slices.Clone(cpus)}
	total := float64(d.Total())
	if total == 0 {
		return u
	}
	pct := func(v uint64) float64 { return 100 * float64(v) / total }
	u.User = pct(d.User + d.Nice)
	u.System = pct(d.System)
	u.IRQ = pct(d.IRQ)
	u.SoftIRQ = pct(d.SoftIRQ)
	u.Busy = pct(d.User + d.Nice + d.System + d.IRQ + d.SoftIRQ)
	u.Steal = pct(d.Steal)
	return u
}

// sub is a-b, 0 when a counter went backwards (CPU hot-plug).
func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
