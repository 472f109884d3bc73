package bench

import (
	"os"
	"testing"

	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/guest/linux"
)

// FuzzParseCPU feeds Linux's /proc/stat parser, FreeBSD's kern.cp_times
// parser and the cpuinfo MHz reader arbitrary text, seeded with recorded
// output: none panics, and Usage over two parsed readings stays within
// 0–100 %.
func FuzzParseCPU(f *testing.F) {
	for _, p := range []string{"testdata/proc-stat-before.txt", "testdata/proc-stat-after.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("0 0 0 0 100 1 2 3 4 200")
	f.Add("cpu MHz\t\t: 2400.000\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, parse := range []func(string) (map[int]CPUTimes, error){linux.ParseCPUStat, freebsd.ParseCPTimes} {
			m, err := parse(text)
			if err != nil {
				continue
			}
			var cpus []int
			for c := range m {
				cpus = append(cpus, c)
			}
			zero := map[int]CPUTimes{}
			for c := range m {
				zero[c] = CPUTimes{}
			}
			u := Usage(zero, m, cpus)
			if u.Busy < 0 || u.Busy > 100.0001 || u.Busy != u.Busy {
				t.Fatalf("busy %v from %q", u.Busy, text)
			}
		}
		_ = linux.ParseCPUMHz(text)
	})
}
