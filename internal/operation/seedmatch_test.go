package operation

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/lab-bench/lab/guest/freebsd" // registers guest os "freebsd"
	_ "github.com/lab-bench/lab/guest/linux"   // registers guest os "linux"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// TestSeed003MatchNamesHardware loads seed 003's examples and judges
// runs of other hardware against the post's tables: a bhyve host is not
// enough for the absolute figures (issue 33 §4), the CPU and the ends'
// NIC drivers must be the post's too, and loss-cc's local back end
// (veth ends) never matches the Emulab table's bce sender.
func TestSeed003MatchNamesHardware(t *testing.T) {
	const ryzen = "AMD Ryzen 5 5560U with Radeon Graphics"
	post := results.Provenance{Provider: "bhyve", ServerCPUModel: ryzen, ClientCPUModel: ryzen,
		ServerDriver: "virtio_net", ClientDriver: "vtnet"}
	other := func(f func(*results.Provenance)) results.Provenance { p := post; f(&p); return p }
	tests := []struct {
		example, table string
		prov           results.Provenance
		want           bool
		why            string
	}{
		{"bhyve-cubic-loss", "seed-003-vm-loss", post, true, ""},
		{"bhyve-cubic-loss", "seed-003-vm-noloss", post, true, ""},
		{"bhyve-cubic-loss", "seed-003-vm-loss", other(func(p *results.Provenance) {
			p.ServerCPUModel, p.ClientCPUModel = "Intel(R) Xeon(R) Gold 6230", "Intel(R) Xeon(R) Gold 6230"
		}), false, "cpu"},
		{"bhyve-cubic-loss", "seed-003-vm-loss", other(func(p *results.Provenance) { p.ClientDriver = "em" }), false, "client_driver"},
		{"bhyve-cubic-loss", "seed-003-vm-loss", other(func(p *results.Provenance) { p.ServerDriver = "" }), false, "server_driver"},
		{"loss-cc", "seed-003-vm-loss", other(func(p *results.Provenance) {
			p.Provider, p.ServerDriver, p.ClientDriver = "local", "veth", "veth"
		}), false, "provider"},
		{"loss-cc", "seed-003-emulab-loss", results.Provenance{Provider: "hosts", ServerDriver: "bnx2", ClientDriver: "bce"}, true, ""},
		{"loss-cc", "seed-003-emulab-loss", other(func(p *results.Provenance) {
			p.Provider, p.ServerDriver, p.ClientDriver = "local", "veth", "veth"
		}), false, "provider"},
		{"loss-cc", "seed-003-emulab-loss", results.Provenance{Provider: "hosts", ServerDriver: "ixgbe", ClientDriver: "ix"}, false, "client_driver"},
	}
	labs := map[string]*spec.Lab{}
	for _, tc := range tests {
		lab := labs[tc.example]
		if lab == nil {
			dir := filepath.Join("..", "..", "examples", tc.example)
			opts := spec.Options{}
			if tc.example == "bhyve-cubic-loss" {
				opts.VarFiles = []string{filepath.Join(dir, "test.labvars")}
			}
			l, diags := spec.Load(dir, opts)
			if diags.HasErrors() {
				t.Fatalf("%s: %v", tc.example, diags)
			}
			lab, labs[tc.example] = l, l
		}
		table := publishedTables(lab)[tc.table]
		if table == nil {
			t.Fatalf("%s: no published %q", tc.example, tc.table)
		}
		g := results.CellGroup{Repeats: []results.Record{{Provenance: tc.prov}}}
		ok, why := table.Comparable(g)
		if ok != tc.want || !strings.Contains(why, tc.why) {
			t.Errorf("%s %s with %+v: comparable %v (%s), want %v (%s)", tc.example, tc.table, tc.prov, ok, why, tc.want, tc.why)
		}
	}
}
