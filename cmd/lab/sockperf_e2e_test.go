package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/verdicts"
)

// TestSockperfLabForReal applies examples/sockperf-latency (sockperf
// ping-pong and under-load, UDP and TCP, between two namespaces) with short
// runs: every run records a round-trip latency with sockperf's own
// percentiles (p50 ≤ p99, no bin resolution), its observation count and
// transactions/s, the client ran with --full-rtt (and --tcp for the TCP
// cells), the example's expectation (a ping-pong median under 1 ms) passes
// and the report shows the latency columns.
func TestSockperfLabForReal(t *testing.T) {
	needNamespaces(t)
	needBinary(t, "sockperf")
	dir := exampleLab(t, "sockperf-latency", "e2e-sockperf", "")
	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-var", "duration=2s", "-var", "repeat=3")
	if err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, stdout, stderr)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 16 {
		t.Fatalf("%d records, want 16 (2 modes × 2 protocols × (1 warm-up + 3))", len(recs))
	}
	for _, r := range recs {
		l := r.Metrics.Latency
		if r.Error != "" || l == nil {
			t.Errorf("%s #%d: error %q latency %+v", r.CellKey, r.Repeat, r.Error, l)
			continue
		}
		if !(l.MinUs > 0 && l.MinUs <= l.P50Us && l.P50Us <= l.P99Us && l.P99Us <= l.MaxUs) || l.Count == 0 ||
			l.ResolutionUs != 0 || r.Metrics.TransactionsPerSec <= 0 {
			t.Errorf("%s #%d: latency %+v, %v transactions/s", r.CellKey, r.Repeat, l, r.Metrics.TransactionsPerSec)
		}
		if argv := strings.Join(r.Raw.ClientArgv, " "); !strings.Contains(argv, "--full-rtt") ||
			strings.Contains(r.CellKey, "tcp") != strings.Contains(argv, "--tcp") {
			t.Errorf("%s #%d: client ran %s", r.CellKey, r.Repeat, argv)
		}
		t.Logf("%s #%d: mean %.1f µs (min %.1f, p50 %.1f, p90 %.1f, p99 %.1f, max %.1f; %d observations), %.0f transactions/s",
			r.CellKey, r.Repeat, l.MeanUs, l.MinUs, l.P50Us, l.P90Us, l.P99Us, l.MaxUs, l.Count, r.Metrics.TransactionsPerSec)
	}
	rep, _, err := lab(t, dir, "report")
	// The column's unit follows its values (µs, or ms when they are large).
	if err != nil || !regexp.MustCompile(`latency p99 (µs|ms)`).MatchString(rep) || !strings.Contains(rep, "transactions/s") {
		t.Errorf("report: %v\n%s", err, rep)
	}
	t.Logf("report:\n%s", rep)
	code, outs := checkOutcomes(t, dir)
	skipDisturbed(t, outs)
	if code != 0 || outs["ping-pong median round trip under 1 ms"].Verdict != verdicts.VerdictPass {
		t.Errorf("check: exit %d, %+v", code, outs)
	}
}
