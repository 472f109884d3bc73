package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// backgroundLab measures latency (iperf 2 bounceback) on one pair of
// namespaces idle and under a load of two iperf3 streams.
const backgroundLab = `
lab "e2e-background" {}
template "host" { os = "linux" }
pair "veth" { template = template.host }
experiment "idle" {
  pairs = [pair.veth]
  iperf2 {
    bounceback = true
    duration   = "2s"
  }
}
experiment "loaded" {
  pairs = [pair.veth]
  background {
    iperf3 { parallel = 2 }
  }
  iperf2 {
    bounceback = true
    duration   = "2s"
  }
}
`

// TestBackgroundLoadForReal applies a latency measurement under an iperf3
// load on the local back end: the loaded run's record carries the load's
// throughput, the load's client ran across the whole measurement, and the
// report shows the load column. Everything made is gone afterwards.
func TestBackgroundLoadForReal(t *testing.T) {
	needNamespaces(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(backgroundLab), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sweep(t, "e2e-background") })
	if out, errOut, err := lab(t, dir, "plan"); err != nil || !strings.Contains(out, "(under load: iperf3 x2 streams, 5s)") {
		t.Fatalf("plan: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := lab(t, dir, "apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, out, errOut)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if r.Error != "" || r.Metrics.Latency == nil {
			t.Fatalf("%s: error %q, latency %+v", r.Experiment, r.Error, r.Metrics.Latency)
		}
		b := r.Background
		if r.Experiment == "idle" {
			if b != nil {
				t.Errorf("idle: background %+v", b)
			}
			t.Logf("idle: p50 %.0f µs, %.0f transactions/s", r.Metrics.Latency.P50Us, r.Metrics.TransactionsPerSec)
			continue
		}
		if b == nil || b.Error != "" || b.Metrics.ThroughputBps <= 0 || len(b.Metrics.Streams) != 2 {
			t.Fatalf("loaded: background %+v", b)
		}
		if !b.Raw.Start.Before(r.Raw.Start) || !r.Raw.End.Before(b.Raw.End) {
			t.Errorf("loaded: the measurement [%v, %v] was not inside the load [%v, %v]", r.Raw.Start, r.Raw.End, b.Raw.Start, b.Raw.End)
		}
		t.Logf("loaded: p50 %.0f µs, %.0f transactions/s, load %.2f Gb/s", r.Metrics.Latency.P50Us, r.Metrics.TransactionsPerSec, b.Metrics.ThroughputBps/1e9)
	}
	out, errOut, err := lab(t, dir, "report")
	if err != nil || !strings.Contains(out, "load Gb/s") {
		t.Errorf("report without the load column: %v\n%s%s", err, out, errOut)
	}
	t.Logf("report:\n%s", out)
	if left := namespaces(t, "e2e-background"); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}
