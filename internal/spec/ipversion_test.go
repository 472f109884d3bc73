package spec

import (
	"strings"
	"testing"
)

// TestIPVersion: ip_version = 4, 6 or "dual" reaches every cell's
// benchmark, an iptables/ipfw loss rule follows it, and anything else is
// an error at the attribute's file:line:column.
func TestIPVersion(t *testing.T) {
	exp := func(attr string) string {
		return "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n" +
			"experiment \"e\" {\n  pairs = [pair.p]\n" + attr + "\n  server {\n    loss = \"1%\"\n  }\n  iperf3 {}\n}\n"
	}
	for _, c := range []struct {
		name, attr string
		want       string // the cell's Bench.IPVersion
		wantLoss6  bool
		wantErr    string
	}{
		{name: "default", attr: "", want: ""},
		{name: "4", attr: "  ip_version = 4", want: ""},
		{name: "6", attr: "  ip_version = 6", want: IPv6, wantLoss6: true},
		{name: "string 6", attr: "  ip_version = \"6\"", want: IPv6, wantLoss6: true},
		{name: "dual", attr: "  ip_version = \"dual\"", want: IPDual, wantLoss6: true},
		{name: "5", attr: "  ip_version = 5", wantErr: "main.hcl:6,16-17: Invalid ip_version; ip_version is 4 (the default), 6"},
		{name: "bool", attr: "  ip_version = true", wantErr: "main.hcl:6,16-20: Invalid ip_version"},
		{name: "v6 word", attr: "  ip_version = \"ipv6\"", wantErr: `not "ipv6"`},
		{name: "ipv6 = true", attr: "  ipv6 = true", wantErr: `main.hcl:6,3-7: Unsupported argument; An argument named "ipv6" is not expected here. An experiment's IP version is ip_version = 4, 6 or "dual".`},
		{name: "matrix", attr: "  matrix = { v = [4, 6] }\n  ip_version = matrix.v", wantErr: "matrix"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(exp(c.attr))}, Options{})
			if c.wantErr != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), c.wantErr) {
					t.Fatalf("diagnostics %v, want one containing %q", diags, c.wantErr)
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
			if cs.Bench.IPVersion != c.want {
				t.Errorf("bench ip_version %q, want %q", cs.Bench.IPVersion, c.want)
			}
			if cs.Server.IPv6 != c.wantLoss6 || cs.Client.IPv6 != c.wantLoss6 || cs.Server.Loss == nil {
				t.Errorf("server %+v, client %+v: want IPv6 %v", cs.Server, cs.Client, c.wantLoss6)
			}
			if l.Experiments[0].IPVersion != c.want {
				t.Errorf("experiment ip_version %q, want %q", l.Experiments[0].IPVersion, c.want)
			}
		})
	}
}
