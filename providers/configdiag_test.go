package providers_test

import (
	"context"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/bhyve"
	"github.com/lab-bench/lab/providers/hosts"
	"github.com/lab-bench/lab/providers/libvirt"
	"github.com/lab-bench/lab/providers/local"
	"github.com/lab-bench/lab/providers/vsphere"
)

// Every back end's Configure error names the spec's file and the line of
// the attribute it is about (issue 21: libvirt's accel = "xyz" named none);
// an error about the block as a whole names the block's end.
func TestConfigureErrorsNameFileAndLine(t *testing.T) {
	vs := func() providers.Provider {
		p := vsphere.New()
		p.Getenv = func(string) string { return "" } // no GOVC_* of this machine's
		return p
	}
	tests := []struct {
		name     string
		provider func() providers.Provider
		block    string
		summary  string
		line     int // 0: the block's end
	}{
		{"libvirt accel", func() providers.Provider { return libvirt.New() }, "pool = \"lab\"\naccel = \"xyz\"\n", "Invalid accel", 2},
		{"libvirt uri", func() providers.Provider { return libvirt.New() }, "uri = \"nope\"\n", "Invalid libvirt URI", 1},
		{"libvirt initrd", func() providers.Provider { return libvirt.New() }, "\ninitrd = \"/boot/initrd\"\n", "Missing kernel", 2},
		{"libvirt duration", func() providers.Provider { return libvirt.New() }, "\n\nlease_timeout = \"soon\"\n", "Invalid duration", 3},
		{"libvirt unsupported", func() providers.Provider { return libvirt.New() }, "\nfoo = 1\n", "Unsupported argument", 2},
		{"vsphere ip_timeout", vs, "url = \"https://vc.example/sdk\"\n\nip_timeout = \"soon\"\n", "Invalid ip_timeout", 3},
		{"vsphere no url", vs, "datacenter = \"dc\"\n", "Missing vCenter URL", 0},
		{"vsphere link_mode", vs, "url = \"https://vc.example/sdk\"\nlink_mode = \"mesh\"\n", "Invalid link_mode", 2},
		{"local cpus", func() providers.Provider { return local.New() }, "\ncpus = 0\n", "Invalid cpus", 2},
		{"bhyve host", func() providers.Provider { return bhyve.New() }, "host = \"bad host\"\n", "Invalid host", 1},
		{"bhyve vale", func() providers.Provider { return bhyve.New() },
			"host = \"box\"\nbackend = \"bhyve\"\nnetwork_backend = \"vale\"\n", "VALE needs vm-bhyve", 3},
		{"hosts address", func() providers.Provider { return hosts.New() },
			"server {\n  address = \"bad host!\"\n  iface = \"eth0\"\n}\nclient {\n  address = \"c\"\n  iface = \"eth0\"\n}\n", "Invalid address", 2},
		{"hosts router without iface2", func() providers.Provider { return hosts.New() },
			"router {\n  address = \"198.18.0.1\"\n  iface = \"eth0\"\n}\n", "Missing iface2", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, d := hclsyntax.ParseConfig([]byte(tc.block), "lab.hcl", hcl.InitialPos)
			if d.HasErrors() {
				t.Fatal(d)
			}
			diags := tc.provider().Configure(context.Background(), f.Body)
			found := false
			for _, dg := range diags {
				if dg.Severity != hcl.DiagError {
					continue
				}
				if dg.Subject == nil || dg.Subject.Filename != "lab.hcl" || dg.Subject.Start.Line < 1 {
					t.Errorf("%q names no file and line: %+v", dg.Summary, dg.Subject)
					continue
				}
				if dg.Summary != tc.summary {
					continue
				}
				found = true
				want := tc.line
				if want == 0 {
					want = f.Body.MissingItemRange().Start.Line
				}
				if dg.Subject.Start.Line != want {
					t.Errorf("%q at line %d, want %d", dg.Summary, dg.Subject.Start.Line, want)
				}
			}
			if !found {
				t.Errorf("no %q error in %v", tc.summary, diags)
			}
		})
	}
}
