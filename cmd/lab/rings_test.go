package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRingsRefusedAtPlan: rx_ring/tx_ring fail the plan at the experiment,
// before anything is created, where they cannot take effect: on the local
// back end (veth has no ring parameters; guest/linux TestRealRings shows
// the same refusal from a real namespace at apply) and for FreeBSD guests
// (loader tunables). The vmxnet3 example's Debian-only ring experiment
// plans (TestExamples); adding the FreeBSD pair to it is refused.
func TestRingsRefusedAtPlan(t *testing.T) {
	example, err := os.ReadFile("../../examples/vmxnet3-lro-mtu/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	vars, err := os.ReadFile("../../examples/vmxnet3-lro-mtu/test.labvars")
	if err != nil {
		t.Fatal(err)
	}
	withFBSD := strings.Replace(string(example), "  pairs  = [pair.deb]\n  matrix = { rx_ring", "  pairs  = [pair.deb, pair.fbsd]\n  matrix = { rx_ring", 1)
	if withFBSD == string(example) {
		t.Fatal("the example's deb-rings experiment changed: update this test")
	}
	for _, tt := range []struct {
		name, body, vars string
		want             []string
	}{
		{"local veth", `lab "rl" {}
template "host" {}
pair "veth" { template = template.host }
experiment "rings" {
  pairs = [pair.veth]
  guest { rx_ring = 512 }
  iperf3 { duration = "2s" }
}
`, "", []string{"NIC ring sizes not supported", "lab.hcl line 4", "pair veth, provider local.default", "server: rx_ring = 512", "Operation not supported"}},
		{"freebsd vmx", withFBSD, string(vars), []string{"Ring sizes are boot-time on FreeBSD", `experiment "deb-rings"`, "pair fbsd",
			"iflib.override_nrxds", "loader.conf"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-chdir=" + dir, "plan"}
			if tt.vars != "" {
				if err := os.WriteFile(filepath.Join(dir, "test.labvars"), []byte(tt.vars), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-var-file", "test.labvars")
			}
			var stdout, stderr bytes.Buffer
			code := Main(args, strings.NewReader(""), &stdout, &stderr, nil)
			msg := strings.Join(strings.Fields(stderr.String()), " ")
			for _, w := range tt.want {
				if code == 0 || !strings.Contains(msg, w) {
					t.Errorf("plan: exit %d, output lacks %q:\n%s%s", code, w, stdout.String(), stderr.String())
				}
			}
			if strings.Contains(msg, "pair deb,") {
				t.Errorf("the Debian pair on vmxnet3 may set ring sizes:\n%s", stderr.String())
			}
		})
	}
}
