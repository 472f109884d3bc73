package operation

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// TestPublishWarnsSingleRepeat publishes a run with one repeat per cell
// (a bundle whose reproduction can only be inconclusive: issue 33 §4)
// and one with two: only the first warns, and both bundles are written.
func TestPublishWarnsSingleRepeat(t *testing.T) {
	for _, tt := range []struct {
		repeats int
		warn    string
	}{
		{1, "2 of 2 cells of run"},
		{2, ""},
	} {
		dir := t.TempDir()
		src := "lab \"pub\" {}\ntemplate \"host\" { os = \"linux\" }\npair \"veth\" { template = template.host }\n" +
			"experiment \"mtu\" {\n  pairs = [pair.veth]\n  matrix = { mtu = [1500, 9000] }\n  repeat = " +
			strconv.Itoa(tt.repeats) + "\n  guest { mtu = matrix.mtu }\n  iperf3 {}\n}\n"
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		l, diags := spec.Load(dir, spec.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		run, err := results.Store{Dir: filepath.Join(dir, "results")}.NewRun(results.RunInfo{Lab: "pub", SpecHash: l.Hash,
			Started: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		for i, mtu := range []string{"1500", "9000"} {
			for r := 1; r <= tt.repeats; r++ {
				rec := results.Record{Lab: "pub", Experiment: "mtu", Pair: "veth", Cell: []results.CellValue{{Name: "mtu", Value: mtu}},
					CellKey: "mtu=" + mtu, CellIndex: i, Repeat: r, Metrics: bench.Sample{ThroughputBps: 9e9 + float64(r)*1e8},
					Provenance: results.Provenance{Provider: "local"}}
				if err := run.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := run.Finish(results.StatusComplete); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		o := &Operation{Dir: dir, Stderr: &stderr}
		out := filepath.Join(t.TempDir(), "b")
		if _, _, _, err := o.publishRun(l, Vars{}, PublishOptions{Out: out, Margin: 0.1, ShapeMargin: 0.05}); err != nil {
			t.Fatalf("repeat %d: publish: %v", tt.repeats, err)
		}
		if _, err := os.Stat(filepath.Join(out, "bundle.json")); err != nil {
			t.Errorf("repeat %d: no bundle: %v", tt.repeats, err)
		}
		got := stderr.String()
		if tt.warn == "" && got != "" || tt.warn != "" && (!strings.Contains(got, tt.warn) || !strings.Contains(got, "only be inconclusive")) {
			t.Errorf("repeat %d: stderr %q, want %q", tt.repeats, got, tt.warn)
		}
	}
}
