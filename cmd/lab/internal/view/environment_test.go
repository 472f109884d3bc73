package view

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestRunEnvironment: `lab show` prints each run's runner CPU pressure
// and load average, says so where PSI was absent, marks the runs
// disturbed (by steal), and prints nothing for records written
// before environments were recorded.
func TestRunEnvironment(t *testing.T) {
	var b strings.Builder
	RunEnvironment(&b, []results.Record{{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: 1}})
	if b.Len() != 0 {
		t.Errorf("old records: %q", b.String())
	}
	recs := []results.Record{
		{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: 1, Environment: &results.Environment{CPUPressure: 2.04, CPUPressureKnown: true, Load1Start: 0.2, Load1End: 0.31}},
		{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: 2, Environment: &results.Environment{CPUPressure: 94.2, CPUPressureKnown: true, Load1Start: 15, Load1End: 48},
			Disturbed: "CPU steal 9.0% on the client (the hypervisor ran something else on its vCPUs during the run)"},
		{Experiment: "e", Pair: "p", CellKey: "mtu=1500", Repeat: 1, Environment: &results.Environment{Load1Start: 3, Load1End: 4}},
		{Experiment: "e", Pair: "p", CellKey: "mtu=1500", Repeat: 2}, // failed before its benchmark
	}
	RunEnvironment(&b, recs)
	want := "\nRunner during each benchmark (CPU pressure: share of the run some task waited for a CPU; load average at start → end):\n" +
		"  e/p mtu=9000 #1: CPU pressure 2.0%, load 0.20 → 0.31\n" +
		"  e/p mtu=9000 #2: CPU pressure 94.2%, load 15.00 → 48.00 (disturbed)\n" +
		"  e/p mtu=1500 #1: CPU pressure unknown (no /proc/pressure/cpu), load 3.00 → 4.00\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
