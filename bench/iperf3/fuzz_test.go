package iperf3_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf3"
)

// FuzzParse feeds the parser arbitrary client output, seeded with every
// recorded run: it never panics, and what it accepts can be stored.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"end":{"sum_received":{"bits_per_second":-1}}}`)
	f.Fuzz(func(t *testing.T, client string) {
		s, err := new(iperf3.Runner).Parse(bench.Raw{Client: client})
		if err != nil {
			return
		}
		if err := bench.CheckSample(s); err != nil {
			t.Fatal(err)
		}
	})
}
