package main

import (
	"strings"
	"testing"
)

// TestVerdictsFailForReal: on real namespaces, with repeat = 3, an
// expectation far from what this machine measures exits 2 (not 0) — a
// megabit, which every run exceeds even when the machine's hypervisor
// stole CPU (steal can only lower a rate, so the noise guard keeps that
// fail) — and `retransmits = { max = 0 }` fails when every run retransmits
// and none was disturbed (a single veth stream at MTU 1500 without GRO
// retransmits thousands of segments; steal can move a count either way).
func TestVerdictsFailForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-verdict", `
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "far" {
  pairs  = [pair.veth]
  repeat = 3
  guest {
    mtu = 1500
    gro = false
  }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
  expect "a megabit" {
    throughput = { gbps = 0.001, tolerance = "5%" }
  }
  expect "no retransmits" {
    retransmits = { max = 0 }
  }
}
`)
	out, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if code := exitStatus(err); code != exitExpect {
		t.Fatalf("apply exit %d, want %d (an expectation failed)\n%s%s", code, exitExpect, out, stderr)
	}
	if !strings.Contains(out, "entirely above") {
		t.Errorf("the throughput verdict does not say the CI is above the band:\n%s", out)
	}
	recs := loadRecords(t, dir)
	every := len(recs) > 0
	for _, r := range recs {
		every = every && r.Metrics.Retransmits > 0 && r.Disturbed == ""
	}
	if every && !strings.Contains(out, "every one of 3 runs exceeded") {
		t.Errorf("every run retransmitted, but retransmits = { max = 0 } did not fail:\n%s", out)
	}
	if !every {
		t.Logf("not every run retransmitted undisturbed here; the retransmit rule is covered by the unit tests")
	}
}
