package bhyve

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/providers"
)

func TestCheckGroupRefusesTapOffloads(t *testing.T) {
	g := &plan.Group{Pair: "fbsd", Runs: []plan.Run{
		{CellKey: "lro=false"},
		{CellKey: "lro=true"},
	}}
	g.Runs[0].Spec.Server = guest.Settings{Offloads: map[string]bool{"lro": false}}
	g.Runs[1].Spec.Server = guest.Settings{Offloads: map[string]bool{"lro": true}}
	g.Runs[1].Spec.Client = guest.Settings{Offloads: map[string]bool{"tso": true}}
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
		err := p.CheckGroup(g)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: %v", tc.extra, err)
		}
		if err == nil {
			continue
		}
		for _, w := range []string{"pair fbsd", "server: lro = true (cell lro=true)", "client: tso = true", "tap backend", `network_backend = "vale"`, "strict = false"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
		if strings.Contains(err.Error(), "lro = false") {
			t.Errorf("asking for off is what a tap gives, not a problem: %v", err)
		}
	}
	p, _ := configure(t, `host = "192.0.2.5"`)
	err := p.checkMachine(providers.Machine{Pair: "fbsd", Role: "server", NIC: providers.NIC{Host: map[string]bool{"tso": true}}})
	if err == nil || !strings.Contains(err.Error(), "server: host tso = true") {
		t.Errorf("host offload bits: %v", err)
	}
}

func TestConfigureErrors(t *testing.T) {
	tests := []struct{ src, summary string }{
		{`host = "a;b"`, "Invalid host"},
		{"host = \"h\"\nbackend = \"xen\"", "Invalid backend"},
		{"host = \"h\"\ndatastore = \"zroot/$(x)\"", "Invalid datastore"},
		{"host = \"h\"\nswitch = \"-x\"", "Invalid switch"},
		{"host = \"h\"\nuplink = \"igb1; reboot\"", "Invalid uplink"},
		{"host = \"h\"\nnetwork_backend = \"netgraph\"", "Invalid network backend"},
		{"host = \"h\"\naddress_discovery = \"mdns\"", "Invalid address discovery"},
		{"host = \"h\"\naddress_discovery = \"static\"", "Missing static addresses"},
		{"host = \"h\"\naddresses = { \"x.server\" = \"not-an-ip\" }", "Invalid static address"},
		{"host = \"h\"\nleases_file = \"relative\"", "Invalid leases file"},
		{"host = \"h\"\nbackend = \"bhyve\"\nnetwork_backend = \"vale\"", "VALE needs vm-bhyve"},
		{"host = \"h\"\nhost_key = \"nope\"", "Invalid host key"},
		{"host = \"h\"\nboot_timeout = \"soon\"", "Invalid boot_timeout"},
		{"host = \"h\"\nguest_iface = { linux = \"eth0 x\" }", "Invalid guest interface"},
	}
	for _, tc := range tests {
		_, d := configure(t, tc.src)
		if !d.HasErrors() || !strings.Contains(d.Error(), tc.summary) {
			t.Errorf("%q: %v, want %q", tc.src, d, tc.summary)
		}
	}
	p, d := configure(t, `host = "bhyve1.example"`)
	if d.HasErrors() {
		t.Fatal(d)
	}
	c := p.cfg
	if c.Backend != "vm-bhyve" || c.Datastore != "zroot/vm" || c.NetworkBackend != "tap" || !c.strict() || c.AddressDiscovery != "arp" || c.User != "root" || c.Port != 22 {
		t.Errorf("defaults: %+v", c)
	}
}

// TestNamesAreSafe: machine names that bhyve cannot take are refused
// before any command runs.
func TestNamesAreSafe(t *testing.T) {
	for _, name := range []string{"a-very-long-lab-name-for-a-pair-s", "x;y-s", "a b"} {
		if err := checkVMName(name); err == nil {
			t.Errorf("%q accepted", name)
		}
	}
	if err := checkVMName("cubic-cc-s"); err != nil {
		t.Error(err)
	}
	if a, b := switchName("lab-a-b"), switchName("lab-a-c"); a == b || len(a) != 9 || len("vm-"+a) > 15 {
		t.Errorf("switch names %s %s", a, b)
	}
}
