package providers_test

import (
	"context"
	"fmt"
	"slices"
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
		{"libvirt link_bridge", func() providers.Provider { return libvirt.New() }, "\nlink_bridge = \"br 0\"\nmanagement = \"lab\"\n", "Invalid link_bridge", 2},
		{"libvirt ssh without ssh", func() providers.Provider { return libvirt.New() }, "\n\nhost_key = \"ssh-ed25519 AAAA\"\n", "SSH setting without SSH", 3},
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

// TestConfigDiagsAtValue: an error about an attribute points at its value,
// as hcl's own do (libvirt's link_bridge checks pointed at the name), and a
// nested block's error about an attribute it does not set, or about the
// block, at the block's header, which names the block.
func TestConfigDiagsAtValue(t *testing.T) {
	f, d := hclsyntax.ParseConfig([]byte("link_bridge = \"br0\"\nlink_macvtap = \"eth1\"\nserver {\n  iface = \"eth0\"\n}\n"), "lab.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	diags := libvirt.New().Configure(context.Background(), f.Body)
	var got []string
	for _, dg := range diags {
		if dg.Summary == "Conflicting arguments" {
			got = append(got, fmt.Sprintf("%d:%d", dg.Subject.Start.Line, dg.Subject.Start.Column))
		}
	}
	if want := []string{"1:15"}; !slices.Equal(got, want) {
		t.Errorf("libvirt's Conflicting arguments at %q, want %q (link_bridge's value)", got, want)
	}
	content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "server"}}})
	cd := providers.NewBlockConfigDiags(content.Blocks[0])
	cd.Errorf("iface", "Invalid interface", "")
	cd.Errorf("address", "Invalid address", "")
	cd.Errorf("", "Block", "")
	got = nil
	for _, dg := range cd.Diags() {
		got = append(got, fmt.Sprintf("%d:%d", dg.Subject.Start.Line, dg.Subject.Start.Column))
	}
	if want := []string{"4:11", "3:1", "3:1"}; !slices.Equal(got, want) {
		t.Errorf("nested block's errors at %q, want %q", got, want)
	}
}
