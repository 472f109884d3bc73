package results

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment is the state of the runner — the machine lab runs on; for
// the local back end that is where the namespaces live — during a run's
// benchmark: how contended its CPUs were and its load average.
type Environment struct {
	// CPUPressure is the share (%) of the benchmark's wall time during
	// which some runnable task on the runner waited for a CPU: the growth
	// of the "some total=" microseconds of /proc/pressure/cpu (Linux PSI,
	// the kernel's Documentation/accounting/psi.rst) over the window,
	// divided by the window. CPUPressureKnown is false where the file is
	// absent (a kernel before 4.20, or one booted with psi=0) or unreadable.
	CPUPressure      float64 `json:"cpu_pressure_pct"`
	CPUPressureKnown bool    `json:"cpu_pressure_known"`
	// Load1Start and Load1End are the runner's 1-minute load average
	// (/proc/loadavg, first field) when the benchmark started and ended;
	// 0 where the file is absent.
	Load1Start float64 `json:"load1_start"`
	Load1End   float64 `json:"load1_end"`
}

// The files an EnvProbe reads.
const (
	PressurePath = "/proc/pressure/cpu"
	LoadavgPath  = "/proc/loadavg"
)

// EnvReading is the runner's state at one moment (EnvProbe.Read).
type EnvReading struct {
	// At is when it was read (with a monotonic clock reading, so that
	// the window between two readings is wall time actually elapsed).
	At time.Time
	// PressureUs is the cumulative "some total=" of /proc/pressure/cpu,
	// in microseconds; PressureKnown says whether the file was there.
	PressureUs    uint64
	PressureKnown bool
	// Load1 is the 1-minute load average (0 without /proc/loadavg).
	Load1 float64
}

// EnvProbe reads the runner's environment. Its zero value reads /proc
// with os.ReadFile and the clock with time.Now; tests give both.
type EnvProbe struct {
	ReadFile func(path string) ([]byte, error)
	Now      func() time.Time
}

// Read reads PressurePath and LoadavgPath. A file that is absent is
// unknown, not an error; a file that is there but unreadable or does not
// parse is an error naming it (the reading then has what did parse).
func (p EnvProbe) Read() (EnvReading, error) {
	read, now := p.ReadFile, p.Now
	if read == nil {
		read = os.ReadFile
	}
	if now == nil {
		now = time.Now
	}
	r := EnvReading{At: now()}
	var errs []error
	if b, err := read(PressurePath); err == nil {
		total, perr := ParsePressure(b)
		if perr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", PressurePath, perr))
		} else {
			r.PressureUs, r.PressureKnown = total, true
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("%s: %w", PressurePath, err))
	}
	if b, err := read(LoadavgPath); err == nil {
		load, lerr := ParseLoadavg(b)
		if lerr != nil {
			errs = append(errs, fmt.Errorf("%s: %w", LoadavgPath, lerr))
		}
		r.Load1 = load
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("%s: %w", LoadavgPath, err))
	}
	return r, errors.Join(errs...)
}

// ParsePressure reads the "some" line's total= field of a PSI file
// (psi.rst: "some avg10=0.00 avg60=0.00 avg300=0.00 total=0", then a
// "full" line on kernels since 5.13): the cumulative microseconds during
// which some task waited.
func ParsePressure(b []byte) (uint64, error) {
	for i, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "some" {
			continue
		}
		for _, f := range fields[1:] {
			v, ok := strings.CutPrefix(f, "total=")
			if !ok {
				continue
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("line %d: total=%q is not a count of microseconds", i+1, clip(v))
			}
			return n, nil
		}
		return 0, fmt.Errorf("line %d: the some line has no total= field", i+1)
	}
	return 0, errors.New(`no "some" line`)
}

// ParseLoadavg reads the 1-minute load average, the first field of
// /proc/loadavg ("1.84 0.46 0.15 4/137 4380"): a finite number ≥ 0.
func ParseLoadavg(b []byte) (float64, error) {
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0, errors.New("empty")
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("the first field %q is not a load average", clip(fields[0]))
	}
	return v, nil
}

// clip shortens untrusted text quoted in an error.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// EnvironmentBetween is the environment of the window from start to end.
// The pressure is unknown unless both readings have it, the window is
// positive and the counter did not go back; it is clamped to [0, 100]
// (a system-wide "some" share cannot exceed the wall time, psi.rst).
func EnvironmentBetween(start, end EnvReading) *Environment {
	env := &Environment{Load1Start: start.Load1, Load1End: end.Load1}
	window := end.At.Sub(start.At)
	if !start.PressureKnown || !end.PressureKnown || window <= 0 || end.PressureUs < start.PressureUs {
		return env
	}
	pct := float64(end.PressureUs-start.PressureUs) / float64(window.Microseconds()) * 100
	if window.Microseconds() == 0 || !isFinite(pct) {
		return env
	}
	env.CPUPressure, env.CPUPressureKnown = math.Min(100, pct), true
	return env
}
