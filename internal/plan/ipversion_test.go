package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

const ipv6Lab = `
lab "v6" {}
template "t" {}
pair "p" { template = template.t }
pair "q" { template = template.t }
experiment "over6" {
  pairs      = [pair.p]
  ip_version = 6
  iperf3 { duration = "5s" }
}
experiment "over4" {
  pairs = [pair.p, pair.q]
  iperf3 { duration = "5s" }
}
`

// TestIPv6Plan: a pair an experiment uses over IPv6 gets IPv6 links (for
// every experiment using it) in a shape of its own, so a kept pair made
// without them is replaced; the plan's runs say which go over IPv6; a
// back end without IPv6 is refused at the ip_version line.
func TestIPv6Plan(t *testing.T) {
	lab := load(t, ipv6Lab)
	p, diags := New(lab, &state.State{}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	byPair := map[string]*Group{}
	for _, g := range p.Groups {
		byPair[g.Pair] = g
	}
	if g := byPair["p"]; !g.Link.IPv6 || !strings.HasSuffix(g.ShapeDesc, "ipv6") {
		t.Errorf("pair p: link IPv6 %v, shape %q", g.Link.IPv6, g.ShapeDesc)
	}
	if g := byPair["q"]; g.Link.IPv6 || strings.Contains(g.ShapeDesc, "ipv6") {
		t.Errorf("pair q (IPv4 only): link IPv6 %v, shape %q", g.Link.IPv6, g.ShapeDesc)
	}
	for _, r := range p.Runs() {
		if want := map[string]string{"over6": "6", "over4": ""}[r.Experiment]; r.Spec.Bench.IPVersion != want {
			t.Errorf("run %s/%s: ip_version %q, want %q", r.Experiment, r.Pair, r.Spec.Bench.IPVersion, want)
		}
	}
	var b strings.Builder
	if err := p.Render(&b, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "over6/p  (single cell)  #1  5s  IPv6\n") || !strings.Contains(out, "over4/p  (single cell)  #1  5s\n") ||
		!strings.Contains(out, ", defaults, ipv6)") {
		t.Errorf("render:\n%s", out)
	}

	// A pair made before the experiment asked for IPv6 is replaced.
	old := byPair["p"].Shape
	p4, _ := New(load(t, strings.Replace(ipv6Lab, "ip_version = 6", "", 1)), &state.State{}, Options{})
	for _, g := range p4.Groups {
		if g.Pair == "p" && (g.Shape == old || g.Link.IPv6) {
			t.Errorf("IPv4-only pair p has the IPv6 shape %s", g.Shape)
		}
	}

	diags = CheckCapabilities(p, lab, func(string) (providers.Capabilities, bool) { return providers.Capabilities{}, true })
	if len(diags) != 1 || diags[0].Summary != "IPv6 not supported" || diags[0].Subject == nil || diags[0].Subject.Start.Line != 8 {
		t.Errorf("capabilities: %v, want one refusal at lab.hcl line 8", diags)
	}
	if d := CheckCapabilities(p, lab, func(string) (providers.Capabilities, bool) { return providers.Capabilities{IPv6: true}, true }); d.HasErrors() {
		t.Errorf("IPv6 back end refused: %v", d)
	}
}
