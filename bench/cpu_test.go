package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lab-bench/lab/internal/golden"

	"github.com/lab-bench/lab/guest/linux"
)

func readStat(t *testing.T, name string) map[int]CPUTimes {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := linux.ParseCPUStat(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUsageGolden: two /proc/stat samples recorded around one second of a
// busy loop on a 2-CPU machine.
func TestUsageGolden(t *testing.T) {
	before, after := readStat(t, "proc-stat-before.txt"), readStat(t, "proc-stat-after.txt")
	got := map[string]any{
		"before_cpu1": before[1],
		"all":         Usage(before, after, nil),
		"cpu0":        Usage(before, after, []int{0}),
		"cpu1":        Usage(before, after, []int{1}),
		"cpu0,1":      Usage(before, after, []int{0, 1}),
		"absent":      Usage(before, after, []int{7}),
	}
	js, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "usage.golden"), append(js, '\n'))
	if all := Usage(before, after, nil); all.Busy < 40 {
		t.Errorf("a busy loop on one of two CPUs: busy %.1f%%, want >= 40", all.Busy)
	}
}

func TestParseCPUStat(t *testing.T) {
	m, err := linux.ParseCPUStat("cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu12 10 0 10 80 0 0 0 0\nintr 1 2\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]CPUTimes{0: {User: 1, Nice: 2, System: 3, Idle: 4, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8}, 12: {User: 10, System: 10, Idle: 80}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v", m)
	}
	for _, bad := range []string{"", "cpu0 1 2 3\n", "cpuX 1 2 3 4 5 6 7 8\n", "cpu0 1 2 3 4 5 6 7 -8\n"} {
		if _, err := linux.ParseCPUStat(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	u := Usage(map[int]CPUTimes{0: {}}, map[int]CPUTimes{0: {User: 10, Nice: 10, System: 20, Idle: 40, IRQ: 5, SoftIRQ: 5, Steal: 10}}, nil)
	if !reflect.DeepEqual(u, CPUUsage{User: 20, System: 20, IRQ: 5, SoftIRQ: 5, Busy: 50, Steal: 10}) {
		t.Errorf("Usage: %+v", u)
	}
}

// TestParseCPUInfo reads this machine's /proc/cpuinfo (the first CPU's
// lines, captured into testdata) and text without the fields.
func TestParseCPUInfo(t *testing.T) {
	b, err := os.ReadFile("testdata/proc-cpuinfo.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, text, model string
		mhz               bool
	}{
		{"captured", string(b), "AMD EPYC", true},
		{"no model", "processor\t: 0\ncpu MHz\t\t: 2000.000\n", "", true},
		{"empty", "", "", false},
	} {
		if got := ParseCPUModel(tt.text); got != tt.model {
			t.Errorf("%s: model %q, want %q", tt.name, got, tt.model)
		}
		if got := linux.ParseCPUMHz(tt.text); (got > 0) != tt.mhz {
			t.Errorf("%s: MHz %v", tt.name, got)
		}
	}
}
