package main

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// ipv6LabSrc is a direct and a routed pair of namespaces, measured with
// iperf3 over IPv6 (ip_version = 6) and dual stack, and the direct pair
// over IPv4 too.
const ipv6LabSrc = `lab "e2e-ipv6" {}
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
pair "routed" {
  template = template.host
  via      = template.host
}
experiment "v4" {
  pairs = [pair.veth]
  iperf3 { duration = "1s" }
}
experiment "v6" {
  pairs      = [pair.veth, pair.routed]
  ip_version = 6
  iperf3 { duration = "1s" }
}
experiment "dual" {
  pairs      = [pair.veth]
  ip_version = "dual"
  server { loss = "1%" }
  iperf3 { duration = "1s" }
}
`

// TestApplyIPv6ForReal applies a lab whose experiments run over IPv6 on
// the local back end: the plan shows which runs go over IPv6, every
// IPv6 record names unique local addresses and the IP version, iperf3
// ran with -6 between them (its JSON says so) at a positive throughput,
// the routed pair crossed its router, the IPv4 record is as before, the
// report names the IP version, and nothing is left afterwards.
func TestApplyIPv6ForReal(t *testing.T) {
	needNamespaces(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(ipv6LabSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sweep(t, "e2e-ipv6") })
	plan, _, err := lab(t, dir, "plan")
	if err != nil || !strings.Contains(plan, "v6/routed  (single cell)  #1  1s  IPv6") || !strings.Contains(plan, "IPv6 (dual stack)") ||
		!strings.Contains(plan, "pair.veth.server  (local, 1 vCPU, ipv6)") {
		t.Errorf("plan: %v\n%s", err, plan)
	}
	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
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
	if len(recs) != 4 {
		t.Fatalf("got %d records, want 4", len(recs))
	}
	ula := netip.MustParsePrefix("fd00::/8")
	for _, r := range recs {
		name := r.Experiment + "/" + r.Pair
		if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: error %q, throughput %v", name, r.Error, r.Metrics.ThroughputBps)
			continue
		}
		if r.Experiment == "v4" {
			if r.Intent.Bench.IPVersion != "" || r.Provenance.IPVersion != "" || r.Provenance.ServerAddr != "" || slices.Contains(r.Raw.ClientArgv, "-6") {
				t.Errorf("%s: IPv4 run marked IPv6: %+v %q", name, r.Provenance, r.Raw.ClientArgv)
			}
			continue
		}
		want := map[string]string{"v6": "6", "dual": "dual"}[r.Experiment]
		p := r.Provenance
		if r.Intent.Bench.IPVersion != want || p.IPVersion != want {
			t.Errorf("%s: ip_version intent %q provenance %q, want %q", name, r.Intent.Bench.IPVersion, p.IPVersion, want)
		}
		for _, a := range []string{p.ServerAddr, p.ClientAddr} {
			if ip, err := netip.ParseAddr(a); err != nil || !ula.Contains(ip) {
				t.Errorf("%s: address %q is not a unique local IPv6 address", name, a)
			}
		}
		if !slices.Contains(r.Raw.ClientArgv, "-6") || !slices.Contains(r.Raw.ClientArgv, p.ServerAddr) || !slices.Contains(r.Raw.ServerArgv, "-6") {
			t.Errorf("%s: iperf3 not run over IPv6: server %q client %q", name, r.Raw.ServerArgv, r.Raw.ClientArgv)
		}
		var out struct {
			Start struct {
				Connected []struct {
					Local  string `json:"local_host"`
					Remote string `json:"remote_host"`
				} `json:"connected"`
			} `json:"start"`
		}
		if err := json.Unmarshal([]byte(r.Raw.Client), &out); err != nil || len(out.Start.Connected) == 0 ||
			out.Start.Connected[0].Remote != p.ServerAddr || out.Start.Connected[0].Local != p.ClientAddr {
			t.Errorf("%s: iperf3's connection %+v (%v), want %s -> %s", name, out.Start.Connected, err, p.ClientAddr, p.ServerAddr)
		}
		if r.Pair == "routed" && netip.MustParsePrefix(p.ServerAddr+"/64").Masked() == netip.MustParsePrefix(p.ClientAddr+"/64").Masked() {
			t.Errorf("%s: routed ends share a /64: %s %s", name, p.ServerAddr, p.ClientAddr)
		}
		if r.Experiment == "dual" && (!strings.Contains(r.Observed.Server.Loss, "-A LAB-LOSS") || !r.Intent.Server.IPv6) {
			t.Errorf("%s: IPv6 loss rule not observed: %q", name, r.Observed.Server.Loss)
		}
	}
	rep, _, err := lab(t, dir, "report", "-format", "markdown")
	if err != nil || !strings.Contains(rep, "- IP version: IPv4, IPv6 fd") || !strings.Contains(rep, ", IPv6 (dual stack) fd") {
		t.Errorf("report markdown: %v\n%s", err, rep)
	}
	if left := namespaces(t, "e2e-ipv6"); len(left) > 0 {
		t.Errorf("namespaces left after apply: %v", left)
	}
	if out, _, err := lab(t, dir, "state", "list"); err != nil || !strings.Contains(out, "no objects") {
		t.Errorf("state after apply: %v\n%s", err, out)
	}
}
