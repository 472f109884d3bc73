package spec

import (
	"context"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// pfLab is a routed pair whose ends and router run FreeBSD (or, with
// routerOS, a router of another OS), with firewall in the router block.
func pfLab(routerOS, block, firewall string) []byte {
	return []byte(`lab "x" {}
template "bsd" {
  os = "freebsd"
}
template "r" {
  os = "` + routerOS + `"
}
pair "p" {
  template = template.bsd
  via      = template.r
}
experiment "e" {
  pairs  = [pair.p]
  matrix = { fw = ["keep-state", "modulate-state-scrub"] }
  ` + block + ` {
    firewall = ` + firewall + `
  }
  iperf3 {}
}
`)
}

// TestPFFirewall: a FreeBSD router's firewall is a pf preset or a pf.conf
// body; it reaches the cell's settings as written, this host's nft never
// sees it, and a refusal points at the file, line and column.
func TestPFFirewall(t *testing.T) {
	for _, tt := range []struct {
		name, routerOS, block, firewall string
		want                            string // the router's firewall in the fw=keep-state cell
	}{
		{"preset from the matrix", "freebsd", "router", "matrix.fw", "keep-state"},
		{"raw pf.conf body", "freebsd", "router", `matrix.fw == "keep-state" ? "set skip on lo0\npass all no state" : "pass all"`, "set skip on lo0\npass all no state"},
		{"guest block on every FreeBSD end", "freebsd", "guest", "matrix.fw", "keep-state"},
		// "" is no firewall in any language: a Linux router and FreeBSD
		// ends may share it.
		{"no firewall on mixed ends", "linux", "guest", `matrix.fw == "keep-state" ? "" : ""`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": pfLab(tt.routerOS, tt.block, tt.firewall)}, Options{})
			wantNoError(t, l, diags)
			cs, diags := l.Experiments[0].Eval(map[string]cty.Value{"fw": cty.StringVal("keep-state")})
			wantNoError(t, l, diags)
			if cs.Router.Firewall != tt.want {
				t.Errorf("router firewall %q, want %q", cs.Router.Firewall, tt.want)
			}
			for _, r := range l.Rulesets() {
				if r.Language != "pf" {
					t.Errorf("ruleset %q checked as %s", r.Body, r.Language)
				}
			}
			t.Setenv("PATH", t.TempDir()) // no nft: a pf ruleset must not need it
			if diags := l.CheckRulesets(context.Background()); len(diags) > 0 {
				t.Errorf("CheckRulesets: %s", writeDiags(t, l, diags))
			}
		})
	}
}

// TestPFFirewallRefused: a value pf would not take, or one set on ends of
// two packet filters, is an error at file:line:column.
func TestPFFirewallRefused(t *testing.T) {
	for _, tt := range []struct {
		name, routerOS, block, firewall string
		summary, detail                 string
		line, col                       int
	}{
		{"preset typo", "freebsd", "router", `"keep_state"`, "Invalid firewall ruleset",
			`"keep_state" is not a pf preset (skip, no-state, keep-state, keep-state-sloppy, modulate-state, modulate-state-scrub); a pf.conf body has whole rules`,
			16, 17},
		{"include in a heredoc", "freebsd", "router", "<<EOT\npass all\ninclude \"/etc/pf.conf\"\nEOT\n", "Invalid firewall ruleset",
			`"include" is not allowed`, 18, 1},
		{"nftables and pf ends", "linux", "guest", "matrix.fw", "Firewall for different packet filters",
			"FreeBSD (pf) and Linux (nftables)", 16, 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := pfLab(tt.routerOS, tt.block, tt.firewall)
			if !strings.Contains(tt.firewall, "matrix") {
				src = []byte(strings.Replace(string(src), `  matrix = { fw = ["keep-state", "modulate-state-scrub"] }`, "  # no matrix", 1))
			}
			l, diags := LoadFiles("", map[string][]byte{"main.hcl": src}, Options{})
			wantOneError(t, l, diags, tt.summary, "", "main.hcl", tt.line, tt.col)
			for _, d := range diags {
				if d.Summary == tt.summary && !strings.Contains(d.Detail, tt.detail) {
					t.Errorf("detail %q lacks %q", d.Detail, tt.detail)
				}
			}
		})
	}
}
