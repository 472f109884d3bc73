package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestLossCCForReal applies examples/loss-cc (seed 003: 1 % nth drop on
// the receiver, CUBIC vs Reno, iperf 2) for real with short runs, then
// checks its expectation, a deliberately failing one, the comparison and
// the plots.
func TestLossCCForReal(t *testing.T) {
	needNamespaces(t)
	if _, err := exec.LookPath("iperf"); err != nil {
		t.Skip("needs iperf (iperf 2)")
	}
	src, err := os.ReadFile("../../examples/loss-cc/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := strings.Replace(string(src), `lab "loss-cc"`, `lab "e2e-losscc"`, 1)
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(body)
	t.Cleanup(func() { sweep(t, "e2e-losscc") })

	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-var", "duration=2s", "-var", "repeat=3") // 2 repeats' t-interval (t = 12.7) can reach 0 from a few Gb/s on a noisy host: the impossible check below then cannot fail
	// Exit 0 (pass or inconclusive) or 2 (the expectation failed) are both
	// outcomes of a measurement; anything else is a bug.
	if code := exitStatus(err); code != 0 && code != exitExpect {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "expectations checked against run") || !strings.Contains(stdout, "cc=reno / cc=cubic") {
		t.Errorf("apply did not run the check:\n%s", stdout)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, err := rs.Latest()
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 16 {
		t.Fatalf("%d records, want 16 (2 experiments x 2 cc x (1 warm-up + 3 repeats))", len(recs))
	}
	for _, r := range recs {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.CellKey, r.Error)
		}
		o := r.Observed
		// The loss rule is the post's: TCP to port 5001 only, every 100th
		// packet; the no-loss experiment has none.
		wantLoss := r.Experiment == "loss-cc"
		if hasLoss := strings.Contains(o.Server.Loss, "--dport 5001") && strings.Contains(o.Server.Loss, "--every 100"); hasLoss != wantLoss ||
			o.Client.Offloads["tso"] != "off" || o.Client.Offloads["gso"] != "off" {
			t.Errorf("%s/%s: loss %q, sender tso %q gso %q", r.Experiment, r.CellKey, o.Server.Loss, o.Client.Offloads["tso"], o.Client.Offloads["gso"])
		}
		if wantLoss && r.Metrics.Retransmits == 0 || r.Metrics.ThroughputBps <= 0 || r.Provenance.ToolVersion == "" {
			t.Errorf("%s: metrics %+v, tool %q", r.CellKey, r.Metrics, r.Provenance.ToolVersion)
		}
		if cc := r.Metrics.CongestionControl; r.Intent.Bench.CongestionControl != "" && cc != r.Intent.Bench.CongestionControl {
			t.Errorf("%s: iperf reports cc %q", r.CellKey, cc)
		}
	}

	// The check on its own agrees with the one apply ran.
	out, _, err := lab(t, dir, "check")
	if code := exitStatus(err); code != 0 && code != exitExpect || !strings.Contains(out, "4 expectation(s)") {
		t.Errorf("check: %v\n%s", err, out)
	}
	// veth in a namespace gives far more than 1 Mb/s even under 1 % loss:
	// the whole CI lies above the ±10 % band [0.0009, 0.0011] Gb/s, so the
	// check fails and exits 2 — also when this machine's hypervisor stole
	// CPU during the runs, which can only have lowered them (the noise
	// guard keeps such a verdict).
	write(strings.Replace(body, `  expect "Reno`, `  expect "impossible" {
    throughput = { gbps = 0.001, tolerance = "10%" }
  }
  expect "Reno`, 1))
	out, errOut, err := lab(t, dir, "check", id)
	if exitStatus(err) != exitExpect || !strings.Contains(out, "fail") {
		t.Errorf("check with a failing expectation: %v\n%s\n%s", err, out, errOut)
	}

	out, _, err = lab(t, dir, "compare", id, id)
	if err != nil || !strings.Contains(out, "cc=reno") {
		t.Errorf("compare: %v\n%s", err, out)
	}
	for _, format := range []string{"svg", "png"} {
		out, _, err = lab(t, dir, "report", "-format", format)
		if err != nil || len(out) < 1000 {
			t.Errorf("report %s: %v (%d bytes)", format, err, len(out))
		}
	}
}

// exitStatus is the exit status of a finished command (0 for no error).
func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
