package history

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// apply is one fake apply of the fixture: its throughput's level (the
// repeats' mean before noise) and its provenance.
type apply struct {
	level          float64
	kernel, labVer string
}

// writeApplies writes one complete run per apply under dir/results, a
// day apart from 2026-11-01, each with three repeats of one cell (and
// one of a second cell, mtu=9000, at a steady 9 Gb/s) whose throughput
// is the level with normal noise of relative standard deviation cv
// (seeded).
func writeApplies(t *testing.T, dir string, seed uint64, cv float64, applies []apply) results.Store {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	rng := rand.New(rand.NewPCG(seed, 2))
	for i, a := range applies {
		run, err := rs.NewRun(results.RunInfo{Lab: "nightly", Started: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC).AddDate(0, 0, i),
			Experiments: []string{"tcp"}, LabVersion: a.labVer, SpecHash: "sha256:5d41402a", Host: "runner-1"})
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= 3; r++ {
			for _, cell := range []struct {
				key   string
				level float64
			}{{"mtu=1500", a.level}, {"mtu=9000", 9e9}} {
				rec := results.Record{Lab: "nightly", Experiment: "tcp", Pair: "veth", CellKey: cell.key, Repeat: r,
					Metrics: bench.Sample{ThroughputBps: cell.level * (1 + cv*rng.NormFloat64())}}
				rec.Provenance.ServerKernel, rec.Provenance.ClientKernel = a.kernel, a.kernel
				if err := run.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := run.Finish(results.StatusComplete); err != nil {
			t.Fatal(err)
		}
	}
	return rs
}

// levels is n applies at level on kernel 6.1.0-18, lab v0.9.0.
func levels(n int, level float64) []apply {
	out := make([]apply, n)
	for i := range out {
		out[i] = apply{level: level, kernel: "6.1.0-18", labVer: "v0.9.0"}
	}
	return out
}
