package bench

import (
	"slices"

	"github.com/lab-bench/lab/guest"
)

// CPUTimes are one CPU's cumulative times (guest.CPUTimes; each guest
// OS's driver reads them, guest.CPU).
type CPUTimes = guest.CPUTimes

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
