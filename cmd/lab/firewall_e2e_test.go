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

// TestFirewallJumboForReal applies examples/firewall-jumbo (seed 001) with
// short runs: client -> router namespace -> server, the router's nftables
// ruleset and MTU changing per cell, and the two concurrent flows. It checks the topology and settings,
// not the throughput ratios (one short repeat proves no shape on a shared
// 2-core machine; the example's expect block is for full runs).
func TestFirewallJumboForReal(t *testing.T) {
	needNamespaces(t)
	if _, err := exec.LookPath("nft"); err != nil {
		t.Skip("needs nft (package nftables)")
	}
	src, err := os.ReadFile("../../examples/firewall-jumbo/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := strings.Replace(string(src), `lab "firewall-jumbo"`, `lab "e2e-fw"`, 1)
	os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644)
	t.Cleanup(func() { sweep(t, "e2e-fw") })

	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-var", "duration=1s", "-var", "repeat=1", "-var", "rules=50")
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == exitExpect) {
		t.Fatalf("apply: %v\n%s\n%s", err, stdout, stderr)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 11 {
		t.Fatalf("%d records, want 11 (6 firewall cells, a loopback run and 2 cells of two concurrent flows)", len(recs))
	}
	for _, r := range recs {
		if r.Experiment == "two-flows" {
			// c1 -> s1 and c2 -> s2 at the same moment, each through a
			// stateful router.
			if r.Error != "" || r.Metrics.ThroughputBps <= 0 || r.Flow == nil || strings.Join(r.Flow.Pairs, ",") != "c1,c2" {
				t.Errorf("two-flows %s %s: error %q, throughput %v, flow %+v", r.Pair, r.CellKey, r.Error, r.Metrics.ThroughputBps, r.Flow)
			} else if r.Observed.Router == nil || !strings.Contains(r.Observed.Router.Firewall, "ct state established") {
				t.Errorf("two-flows %s %s: router without the stateful ruleset: %+v", r.Pair, r.CellKey, r.Observed.Router)
			}
			continue
		}
		if r.Experiment == "loopback" {
			// iperf -c 127.0.0.1 on the server end, as seed 001 ran it.
			if r.Error != "" || r.Metrics.ThroughputBps <= 0 || !r.Intent.Bench.Loopback {
				t.Errorf("loopback: error %q, throughput %v, intent %+v", r.Error, r.Metrics.ThroughputBps, r.Intent.Bench)
			}
			continue
		}
		if r.Error != "" {
			t.Errorf("%s: %s", r.CellKey, r.Error)
			continue
		}
		if r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: no throughput through the router", r.CellKey)
		}
		// The router namespace shares the host's CPUs, which forward and
		// run both iperf3 ends: never idle during a run.
		if c := r.Metrics.RouterCPU; c == nil || c.Busy <= 0 || c.Busy > 100 || c.NumCPUs == 0 {
			t.Errorf("%s: router CPU %+v", r.CellKey, c)
		}
		if r.Observed.Router == nil || r.Observed.Router.MTU != r.Intent.Server.MTU {
			t.Errorf("%s: router not observed at MTU %d: %+v", r.CellKey, r.Intent.Server.MTU, r.Observed.Router)
			continue
		}
		stateful := strings.Contains(r.CellKey, "firewall=stateful")
		if hasCT := strings.Contains(r.Observed.Router.Firewall, "ct state established"); hasCT != stateful {
			t.Errorf("%s: router ruleset does not match the cell:\n%s", r.CellKey, r.Observed.Router.Firewall)
		}
		if strings.Contains(r.CellKey, "firewall=off") && r.Observed.Router.Firewall != "" {
			t.Errorf("%s: an earlier cell's ruleset is still installed", r.CellKey)
		}
	}
	if out, errOut, err := lab(t, dir, "report", "-format", "csv"); err != nil || !strings.Contains(out, "router_cpu_pct_mean") {
		t.Errorf("report without the router's CPU: %v\n%s%s", err, out, errOut)
	}
	if left := namespaces(t, "e2e-fw"); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}
