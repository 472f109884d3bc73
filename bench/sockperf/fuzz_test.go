package sockperf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/sockperf"
)

// FuzzParse feeds the parser arbitrary client output, seeded with every
// recorded run: it never panics, and what it accepts can be stored.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.txt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("sockperf: ====> avg-rtt=1e999 (std-dev=1)\nsockperf: Total 1 observations\nsockperf: ---> percentile 50.000 = 1\n")
	f.Fuzz(func(t *testing.T, client string) {
		s, err := new(sockperf.Runner).Parse(bench.Raw{Client: client})
		if err != nil {
			return
		}
		if err := bench.CheckSample(s); err != nil {
			t.Fatal(err)
		}
	})
}
