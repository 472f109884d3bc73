package guest

import "context"

// CPUTimes are one CPU's cumulative times, in the OS's clock ticks, as its
// driver reads them (Linux /proc/stat; FreeBSD kern.cp_times, which has no
// iowait, softirq or steal). User already includes guest time, Nice
// guest_nice.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal uint64
}

// Total is the sum of all fields.
func (c CPUTimes) Total() uint64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// CPU is how an OS reports its CPUs' use and clock, for the benchmarks'
// CPU sampling.
type CPU struct {
	// Times reads every CPU's times, keyed by CPU number.
	Times func(ctx context.Context, t Transport) (map[int]CPUTimes, error)
	// MHz reads the CPU clock in MHz, 0 when the OS does not say.
	MHz func(ctx context.Context, t Transport) (float64, error)
}
