package operation

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/spec"
	_ "github.com/lab-bench/lab/providers/bhyve"   // registers "bhyve"
	_ "github.com/lab-bench/lab/providers/hosts"   // registers "hosts"
	_ "github.com/lab-bench/lab/providers/libvirt" // registers "libvirt"
	_ "github.com/lab-bench/lab/providers/local"   // registers "local"
	_ "github.com/lab-bench/lab/providers/vsphere" // registers "vsphere"
)

// reachLab is a lab whose one pair's template is made by provider, with
// a second provider block no pair uses (it must not count).
func reachLab(t *testing.T, provider, block string) *spec.Lab {
	t.Helper()
	src := `lab "r" {}
` + block + `
provider "libvirt" "unused" { uri = "qemu+ssh://root@203.0.113.9/system" }
template "t" {
  provider = provider.` + provider + `
  source   = "debian-12"
}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}
`
	l, diags := spec.LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return l
}

// TestReaches: where each back end, as configured, connects — what
// reproduce prints before approval — and the back ends the spec uses
// (SpecBackEnds), a provider block no pair uses left out.
func TestReaches(t *testing.T) {
	for _, tt := range []struct {
		name, provider, block string
		want                  string
		backEnds              string
	}{
		{"local", "local.default", `provider "local" "default" {}`, "local.default this machine (network namespaces)", "local"},
		{"hosts", "hosts.h", `provider "hosts" "h" {
  server {
    address = "192.0.2.1"
    iface   = "eth1"
  }
  client {
    address    = "192.0.2.2"
    port       = 2222
    user       = "bench"
    iface      = "eth1"
    proxy_jump = "jump@198.51.100.1"
  }
}`, "hosts.h server root@192.0.2.1:22, hosts.h client bench@192.0.2.2:2222 via jump@198.51.100.1", "hosts"},
		{"bhyve", "bhyve.b", `provider "bhyve" "b" {
  host   = "192.0.2.5"
  switch = "public"
}`, "bhyve.b root@192.0.2.5:22", "bhyve"},
		{"libvirt", "libvirt.k", `provider "libvirt" "k" { uri = "qemu+ssh://admin@192.0.2.7/system" }`,
			"libvirt.k qemu+ssh://admin@192.0.2.7/system", "libvirt"},
		{"libvirt default", "libvirt.k", `provider "libvirt" "k" {}`, "libvirt.k qemu:///system", "libvirt"},
		{"vsphere", "vsphere.v", `provider "vsphere" "v" {
  url        = "https://vc.example.com/sdk"
  datacenter = "DC0"
  cluster    = "C0"
  datastore  = "ds0"
  network    = "VM Network"
}`, "vsphere.v https://vc.example.com/sdk", "vsphere"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := reachLab(t, tt.provider, tt.block)
			o := &Operation{}
			provs, diags := o.NewProviders(context.Background(), l)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if got := strings.Join(Reaches(l, provs), ", "); got != tt.want {
				t.Errorf("Reaches = %q, want %q", got, tt.want)
			}
			if got := strings.Join(SpecBackEnds(l), ","); got != tt.backEnds {
				t.Errorf("SpecBackEnds = %q, want %q", got, tt.backEnds)
			}
		})
	}
}

// TestCheckBundleSpec: what bundle.json claims must be what the spec is.
func TestCheckBundleSpec(t *testing.T) {
	l := reachLab(t, "local.default", `provider "local" "default" {}`)
	ok := bundle.Info{Lab: "r", SpecHash: l.Hash, BackEnds: []string{"local"}}
	for _, tt := range []struct {
		name string
		edit func(*bundle.Info)
		want string
	}{
		{"as published", func(*bundle.Info) {}, ""},
		{"other lab", func(i *bundle.Info) { i.Lab = "s" }, `says lab "s", the spec in spec/ is lab "r"`},
		{"other hash", func(i *bundle.Info) { i.SpecHash = "abc" }, "hashes to"},
		{"claims hosts", func(i *bundle.Info) { i.BackEnds = []string{"hosts"} }, `back_ends ["hosts"], its spec uses ["local"]`},
		{"claims nothing", func(i *bundle.Info) { i.BackEnds = nil }, `back_ends [], its spec uses ["local"]`},
		{"claims one more", func(i *bundle.Info) { i.BackEnds = []string{"local", "libvirt"} }, `back_ends ["libvirt" "local"]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			info := ok
			tt.edit(&info)
			err := CheckBundleSpec(l, "B", info)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("CheckBundleSpec = %v, want %q", err, tt.want)
			}
		})
	}
}
