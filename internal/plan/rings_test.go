package plan

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestCheckRings: rx_ring/tx_ring are refused at plan on FreeBSD guests
// (naming the iflib loader tunables) and on back ends whose NICs have no
// ring parameters (the local back end's veth); a back end with NICRings
// and Linux guests passes.
func TestCheckRings(t *testing.T) {
	group := func(os string) *Group {
		g := &Group{Pair: "p", ProviderKey: "x", Runs: []Run{
			{Experiment: "e", CellKey: "ring=256"},
			{Experiment: "e", CellKey: "ring=4096"},
		}}
		g.Server.Template.OS, g.Client.Template.OS = os, "linux"
		g.Runs[0].Spec.Server = guest.Settings{RxRing: 256}
		g.Runs[1].Spec.Server = guest.Settings{RxRing: 4096, TxRing: 512}
		return g
	}
	for _, tt := range []struct {
		name string
		os   string
		caps providers.Capabilities
		want []string // empty: no error
	}{
		{"linux on a NIC with rings", "linux", providers.Capabilities{NICRings: true}, nil},
		{"veth", "linux", providers.Capabilities{Why: "(why)"}, []string{"NIC ring sizes not supported", "pair p, provider x",
			"server: rx_ring = 256 (cell ring=256)", "server: rx_ring = 4096, tx_ring = 512 (cell ring=4096)", "Operation not supported", "(why)"}},
		{"freebsd", "freebsd", providers.Capabilities{NICRings: true}, []string{"Ring sizes are boot-time on FreeBSD",
			"dev.<driver>.<unit>.iflib.override_nrxds", "override_ntxds", "loader.conf", "server: rx_ring = 256"}},
	} {
		caps := func(string) (providers.Capabilities, bool) { return tt.caps, true }
		diags := CheckCapabilities(&Plan{Groups: []*Group{group(tt.os)}}, nil, caps)
		if tt.name == "veth" { // a router guest's ring sizes are checked too
			g := group(tt.os)
			g.Server.Template.OS = "linux"
			g.Router = &machine.Machine{Template: machine.Template{OS: "linux"}}
			g.Runs[0].Spec.Router = guest.Settings{TxRing: 128}
			rc := tt.caps
			rc.RoutedPairs = true
			d := CheckCapabilities(&Plan{Groups: []*Group{g}}, nil, func(string) (providers.Capabilities, bool) { return rc, true })
			if len(d) != 1 || !strings.Contains(d[0].Detail, "router: tx_ring = 128 (cell ring=256)") {
				t.Errorf("router: %v", d)
			}
		}
		if len(tt.want) == 0 {
			if diags.HasErrors() {
				t.Errorf("%s: %v", tt.name, diags)
			}
			continue
		}
		if len(diags) != 1 {
			t.Fatalf("%s: want one diagnostic, got %v", tt.name, diags)
		}
		for _, w := range tt.want {
			if !strings.Contains(diags.Error(), w) {
				t.Errorf("%s: %q lacks %q", tt.name, diags.Error(), w)
			}
		}
	}
}
