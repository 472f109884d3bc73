package bench

import (
	"context"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// ReadCPUMHz is the CPU clock of a guest whose OS lab does not know, read
// the way the default OS reads it (Linux: the mean "cpu MHz" of
// /proc/cpuinfo), 0 when it does not say.
func ReadCPUMHz(ctx context.Context, t guest.Transport) (float64, error) {
	return guest.For("").CPU.MHz(ctx, t)
}

// ReadCPUModel is a guest's CPU model name: /proc/cpuinfo's first "model
// name" (Linux), else `sysctl -n hw.model` (FreeBSD); "" when neither
// says.
func ReadCPUModel(ctx context.Context, t guest.Transport) string {
	if res, err := t.Run(ctx, guest.Cmd{Argv: []string{"cat", "/proc/cpuinfo"}}); err == nil {
		if m := ParseCPUModel(string(res.Stdout)); m != "" {
			return m
		}
	}
	if res, err := t.Run(ctx, guest.Cmd{Argv: []string{"sysctl", "-n", "hw.model"}}); err == nil {
		return strings.TrimSpace(string(res.Stdout))
	}
	return ""
}

// ParseCPUModel is the first "model name : …" of /proc/cpuinfo text.
func ParseCPUModel(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// CyclesPerBit is CPU cycles spent per bit received or sent: busy fraction
// × CPUs × clock / throughput (seed 000's "Hz per bit/s" rule of thumb,
// 0.25–1 on its hardware). It is 0 when a factor is unknown.
func CyclesPerBit(u CPUUsage, throughputBps float64) float64 {
	if u.MHz <= 0 || u.NumCPUs <= 0 || throughputBps <= 0 {
		return 0
	}
	return u.Busy / 100 * float64(u.NumCPUs) * u.MHz * 1e6 / throughputBps
}
