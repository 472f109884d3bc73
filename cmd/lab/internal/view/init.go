package view

import (
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/lockfile"
)

// Init is init's view (operation.InitView) on W.
type Init struct{ W io.Writer }

// Ready says that the lab is ready, and what its lock file pins.
func (v Init) Ready(lab string, locked *lockfile.Lock) {
	if locked == nil {
		fmt.Fprintf(v.W, "Lab %q is ready. The first complete `lab apply` writes %s; commit it beside the spec.\n", lab, lockfile.FileName)
	} else {
		fmt.Fprintf(v.W, "Lab %q is ready; %s pins %d machine(s) and %d tool(s).\n", lab, lockfile.FileName, len(locked.Machines), len(locked.Tools))
	}
}

// Drift names one change from the lock file.
func (v Init) Drift(msg string) { fmt.Fprintf(v.W, "  ~ %s\n", msg) }

// Wrote says that the lock file was rewritten from a run.
func (v Init) Wrote(runID string, next *lockfile.Lock) {
	fmt.Fprintf(v.W, "Wrote %s from run %s: %d machine(s), %d tool(s).\n", lockfile.FileName, runID, len(next.Machines), len(next.Tools))
}
