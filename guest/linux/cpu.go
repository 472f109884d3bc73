package linux

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// ReadCPUStat reads per-CPU times on a Linux guest (`cat /proc/stat`, or
// in this process when the transport sees the host's /proc/stat:
// guest.SharedFileReader).
func ReadCPUStat(ctx context.Context, t guest.Transport) (map[int]guest.CPUTimes, error) {
	out, ok, err := guest.ReadShared(ctx, t, "/proc/stat")
	if !ok {
		var res guest.Result
		res, err = t.Run(ctx, guest.Cmd{Argv: []string{"cat", "/proc/stat"}})
		out = res.Stdout
	}
	if err != nil {
		return nil, err
	}
	m, err := ParseCPUStat(string(out))
	if err != nil {
		return nil, fmt.Errorf("%s: /proc/stat: %w", t.Name(), err)
	}
	return m, nil
}

// ParseCPUStat parses the per-CPU lines ("cpuN user nice system idle iowait
// irq softirq steal ...") of /proc/stat; the aggregate "cpu" line is skipped.
func ParseCPUStat(text string) (map[int]guest.CPUTimes, error) {
	m := map[int]guest.CPUTimes{}
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
		m[n] = guest.CPUTimes{User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4], IRQ: v[5], SoftIRQ: v[6], Steal: v[7]}
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no per-CPU lines")
	}
	return m, nil
}

// ReadCPUMHz is the mean "cpu MHz" of a Linux guest's /proc/cpuinfo, 0
// when the file has none (some virtual CPUs do not report it).
func ReadCPUMHz(ctx context.Context, t guest.Transport) (float64, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"cat", "/proc/cpuinfo"}})
	if err != nil {
		return 0, err
	}
	return ParseCPUMHz(string(res.Stdout)), nil
}

// ParseCPUMHz averages the "cpu MHz : N" lines of /proc/cpuinfo text.
func ParseCPUMHz(text string) float64 {
	var sum float64
	n := 0
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != "cpu MHz" {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			sum += f
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}
