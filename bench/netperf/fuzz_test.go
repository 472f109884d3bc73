package netperf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/netperf"
)

// FuzzParse feeds the parser arbitrary output (keyval and classic),
// seeded with every recorded run: it never panics, and what it accepts
// can be stored.
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.txt")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("THROUGHPUT=NaN\nTHROUGHPUT_UNITS=10^6bits/s\n")
	f.Fuzz(func(t *testing.T, client string) {
		s, err := new(netperf.Runner).Parse(bench.Raw{Client: client})
		if err != nil {
			return
		}
		if err := bench.CheckSample(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestParseRefusesUnstorable: a rate JSON cannot hold fails the run with
// the reason instead of losing the record when it is written.
func TestParseRefusesUnstorable(t *testing.T) {
	_, err := new(netperf.Runner).Parse(bench.Raw{Client: "THROUGHPUT=NaN\nTHROUGHPUT_UNITS=10^6bits/s\n"})
	if err == nil || err.Error() != "netperf output: sample cannot be stored: json: unsupported value: NaN" {
		t.Errorf("err = %v", err)
	}
	_, err = new(netperf.Runner).Parse(bench.Raw{Client: "THROUGHPUT=-3\nTHROUGHPUT_UNITS=10^6bits/s\n"})
	if err == nil || err.Error() != "netperf output: negative throughput rate -3e+06" {
		t.Errorf("err = %v", err)
	}
}
