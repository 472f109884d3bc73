package spec

import (
	"github.com/zclconf/go-cty/cty"
	"strings"
	"testing"
)

// TestLossPort: loss_port reaches the end's settings when the benchmark
// uses that very TCP port, and is an error at its range otherwise (a port
// the runner picks, another port, UDP, netperf).
func TestLossPort(t *testing.T) {
	head := "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"
	exp := func(body string) string {
		return head + "experiment \"e\" {\n  pairs = [pair.p]\n" + body + "\n}\n"
	}
	for _, c := range []struct {
		name, src string
		want      string // "" = loads, the server's loss port is 5001
	}{
		{"iperf2 same port", exp("server {\n loss = \"1%\"\n loss_port = 5001\n}\niperf2 { port = 5001 }"), ""},
		{"iperf3 same port from guest", exp("guest {\n loss = \"1%\"\n loss_port = 5001\n}\niperf3 { port = 5001 }"), ""},
		{"port picked", exp("server {\n loss = \"1%\"\n loss_port = 5001\n}\niperf2 {}"), "main.hcl:8,14-18: Invalid loss_port; loss_port = 5001, but the iperf2 block's port is not set"},
		{"other port", exp("server {\n loss = \"1%\"\n loss_port = 5001\n}\niperf2 { port = 5002 }"), "the iperf2 block's port is 5002: set port = 5001"},
		{"udp", exp("server {\n loss = \"1%\"\n loss_port = 5001\n}\niperf3 {\n udp = true\n port = 5001\n}"), "this benchmark runs UDP"},
		{"netperf", exp("server {\n loss = \"1%\"\n loss_port = 5001\n}\nnetperf { port = 5001 }"), "netserver picks"},
		{"out of range", exp("server {\n loss = \"1%\"\n loss_port = 0\n}\niperf2 {}"), "loss_port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(c.src)}, Options{})
			if c.want != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
					t.Fatalf("diagnostics %v, want one containing %q", diags, c.want)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			cs, d := l.Experiments[0].Eval(nil)
			if d.HasErrors() {
				t.Fatal(d)
			}
			if cs.Server.Loss == nil || cs.Server.Loss.Port != 5001 {
				t.Errorf("server loss %+v, want port 5001", cs.Server.Loss)
			}
		})
	}
}

// TestBenchNullIsDefault: a benchmark attribute whose value is null is not
// written: the tool's default applies (netperf's message size is its send
// buffer's), as in seed 004's "netperf with its defaults" cell.
func TestBenchNullIsDefault(t *testing.T) {
	src := "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n" +
		"experiment \"e\" {\n  pairs = [pair.p]\n  matrix = { msg = [\"default\", \"64\"] }\n" +
		"  netperf {\n    send_size = matrix.msg == \"default\" ? null : matrix.msg\n  }\n}\n"
	l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(src)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for msg, want := range map[string]string{"default": "", "64": "64"} {
		cs, d := l.Experiments[0].Eval(map[string]cty.Value{"msg": cty.StringVal(msg)})
		if d.HasErrors() {
			t.Fatal(d)
		}
		if got := cs.Bench.Netperf.SendSize; got != want {
			t.Errorf("msg=%s: send size %q, want %q", msg, got, want)
		}
	}
}
