package view

import (
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/results"
)

// RunEnvironment prints, for `lab show RUN`, the runner's CPU pressure
// and load average during each run's benchmark (results.Environment),
// marking the runs it made disturbed. Records without an environment
// (written before lab recorded it, or of a run that failed before its
// benchmark) are left out; when none has one nothing is printed.
func RunEnvironment(w io.Writer, recs []results.Record) {
	var lines []string
	for _, r := range recs {
		env := r.Environment
		if env == nil {
			continue
		}
		pressure := "unknown (no " + results.PressurePath + ")"
		if env.CPUPressureKnown {
			pressure = fmt.Sprintf("%.1f%%", env.CPUPressure)
		}
		line := fmt.Sprintf("  %s: CPU pressure %s, load %.2f → %.2f", runName(r.Experiment, r.Pair, r.CellKey, r.Repeat), pressure, env.Load1Start, env.Load1End)
		if r.Disturbed != "" {
			line += " (disturbed)"
		}
		lines = append(lines, line)
	}
	section(w, "Runner during each benchmark (CPU pressure: share of the run some task waited for a CPU; load average at start → end):", lines)
}
