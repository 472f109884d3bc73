package bhyve

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
)

// TestCapabilitiesRefuseTapOffloads: on the tap backend (strict) the plan
// refuses offload toggles turned on, since a tap-backed virtio-net offers
// none; strict = false or VALE let them through.
func TestCapabilitiesRefuseTapOffloads(t *testing.T) {
	g := &plan.Group{Pair: "fbsd", ProviderKey: "bhyve.box", Runs: []plan.Run{
		{Experiment: "e", CellKey: "lro=false"},
		{Experiment: "e", CellKey: "lro=true"},
	}}
	g.Runs[0].Spec.Server = guest.Settings{Offloads: map[string]bool{"lro": false}}
	g.Runs[1].Spec.Server = guest.Settings{Offloads: map[string]bool{"lro": true}}
	g.Runs[1].Spec.Client = guest.Settings{Offloads: map[string]bool{"tso": true}}
	withHost := *g
	withHost.Server.NIC.Host = map[string]bool{"tso": true}
	tests := []struct {
		extra   string
		wantErr bool
	}{
		{"", true},
		{"strict = false", false},
		{`network_backend = "vale"`, false},
	}
	for _, tc := range tests {
		p, d := configure(t, "host = \"192.0.2.5\"\n"+tc.extra)
		if d.HasErrors() {
			t.Fatal(d)
		}
		caps := func(string) (providers.Capabilities, bool) { return p.Capabilities(), true }
		diags := plan.CheckCapabilities(&plan.Plan{Groups: []*plan.Group{g}}, nil, caps)
		if diags.HasErrors() != tc.wantErr {
			t.Errorf("%q: %v", tc.extra, diags)
		}
		if !diags.HasErrors() {
			continue
		}
		msg := diags.Error()
		for _, w := range []string{"pair fbsd", "server: lro = true (cell lro=true)", "client: tso = true", "tap backend", `network_backend = "vale"`, "strict = false"} {
			if !strings.Contains(msg, w) {
				t.Errorf("error %q lacks %q", msg, w)
			}
		}
		if strings.Contains(msg, "lro = false") {
			t.Errorf("asking for off is what a tap gives, not a problem: %v", msg)
		}
		hd := plan.CheckCapabilities(&plan.Plan{Groups: []*plan.Group{&withHost}}, nil, caps)
		if !strings.Contains(hd.Error(), "Host-side offloads not supported") {
			t.Errorf("host offload bits on tap: %v", hd)
		}
	}
}

// TestTapAllowsLinuxGRO: Linux does GRO in software (every device gets
// NETIF_F_GRO), so gro = true on a Linux guest behind a tap takes effect
// and is not refused; on the FreeBSD end it is.
func TestTapAllowsLinuxGRO(t *testing.T) {
	p, d := configure(t, "host = \"192.0.2.5\"")
	if d.HasErrors() {
		t.Fatal(d)
	}
	caps := func(string) (providers.Capabilities, bool) { return p.Capabilities(), true }
	g := &plan.Group{Pair: "x", ProviderKey: "bhyve.box", Runs: []plan.Run{{Experiment: "e", CellKey: "gro=true"}}}
	g.Server.Template.OS, g.Client.Template.OS = "freebsd", "linux"
	g.Runs[0].Spec.Client = guest.Settings{Offloads: map[string]bool{"gro": true}}
	if diags := plan.CheckCapabilities(&plan.Plan{Groups: []*plan.Group{g}}, nil, caps); diags.HasErrors() {
		t.Errorf("gro on the Linux client refused: %v", diags)
	}
	g.Runs[0].Spec.Server = guest.Settings{Offloads: map[string]bool{"gro": true}}
	diags := plan.CheckCapabilities(&plan.Plan{Groups: []*plan.Group{g}}, nil, caps)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "server: gro = true") || strings.Contains(diags.Error(), "client: gro") {
		t.Errorf("gro on the FreeBSD server: %v", diags)
	}
}
