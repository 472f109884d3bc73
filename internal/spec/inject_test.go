package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// TestShellInjection puts a shell command into every string that reaches
// a shell (or a hypervisor command line) and expects Load to reject it.
func TestShellInjection(t *testing.T) {
	const evil = `cubic; rm -rf /`
	base := `lab "inj" {}
template "t" { %s }
pair "p" {
  template = template.t
  %s
}
experiment "e" {
  pairs = [pair.p]
  guest { %s }
  server { %s }
  iperf3 { %s }
}
`
	cases := []struct{ name, template, pair, guest, server, iperf3 string }{
		{name: "guest congestion_control", guest: `congestion_control = %q`},
		{name: "server congestion_control", server: `congestion_control = %q`},
		{name: "iperf3 congestion_control", iperf3: `congestion_control = %q`},
		{name: "sysctl key", guest: `sysctl = { %q = "1" }`},
		{name: "sysctl value", guest: `sysctl = { "net.core.rmem_max" = %q }`},
		{name: "length", iperf3: `length = %q`},
		{name: "bitrate", iperf3: `bitrate = %q`},
		{name: "loss", guest: `loss = %q`},
		{name: "loss_method", guest: `loss_method = %q`},
		{name: "nic model", pair: `nic { model = %q }`},
		{name: "nic host key", pair: `nic { host = { %q = true } }`},
		{name: "memory", pair: `memory = %q`},
		{name: "template source", template: `source = %q`},
		{name: "ssh user", template: `ssh { user = %q }`},
		{name: "duration", iperf3: `duration = %q`},
	}
	for _, c := range cases {
		for _, payload := range []string{evil, "cubic\nreboot", "$(reboot)", "`reboot`", "a|b", "a&&b", "x'y"} {
			f := func(s string) string {
				if s == "" {
					return ""
				}
				return fmt.Sprintf(s, payload)
			}
			src := fmt.Sprintf(base, f(c.template), f(c.pair), f(c.guest), f(c.server), f(c.iperf3))
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
			if !diags.HasErrors() {
				t.Errorf("%s = %q was accepted", c.name, payload)
				continue
			}
			if len(diags) != 1 || diags[0].Subject == nil || diags[0].Subject.Start.Line < 2 {
				t.Errorf("%s = %q: want one ranged error, got:\n%s", c.name, payload, writeDiags(t, l, diags))
			}
		}
	}
}

// TestInjectionViaMatrix: a bad value that only one cell has is still
// rejected by Load, pointing at the expression that uses it.
func TestInjectionViaMatrix(t *testing.T) {
	src := `lab "inj" {}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { cc = ["cubic", "bbr; reboot"] }
  guest {
    congestion_control = matrix.cc
  }
  iperf3 {}
}
`
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	if len(diags) != 1 || diags[0].Subject.Start.Line != 8 || !strings.Contains(diags[0].Summary, "congestion control") {
		t.Fatalf("got:\n%s", writeDiags(t, l, diags))
	}
	// Eval reports it too, with the same range.
	e := l.Experiments[0]
	_, d := e.Eval(map[string]cty.Value{"cc": e.Matrix[0].Values[1]})
	if len(d) != 1 || d[0].Subject.Start.Line != 8 {
		t.Fatalf("Eval diags: %v", d)
	}
	var _ hcl.Diagnostics = d
}
