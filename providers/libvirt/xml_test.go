package libvirt

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"libvirt.org/go/libvirtxml"

	"github.com/lab-bench/lab/internal/golden"
)

func TestDomainXML(t *testing.T) {
	base := domainSpec{Name: "lab-kvm-jumbo-s", Type: "qemu", Emulator: "/usr/bin/qemu-system-x86_64", Machine: "pc",
		VCPU: 1, MemoryMiB: 768, Pool: "lab", Volume: "lab-kvm-jumbo-s.qcow2",
		Kernel: "/var/lib/lab/vmlinuz", Initrd: "/var/lib/lab/initrd.img", Cmdline: "root=/dev/vda console=ttyS0",
		Network: "lab-kvm-jumbo", MAC: "52:54:00:12:34:56", Model: "virtio", Driver: "qemu", MTU: 9000,
		Meta: labMeta{LabID: "kvm", Address: "pair.jumbo.server", Role: "server", Volume: "lab-kvm-jumbo-s.qcow2", Pool: "lab", Tag: "lab/1 lab=kvm ws=0a1b2c3d addr=pair.jumbo.server"}}
	base.ConsoleLog = "/var/log/libvirt/qemu/lab-kvm-jumbo-s-console.log"
	offloaded := base
	offloaded.Name, offloaded.Driver, offloaded.Queues = "lab-kvm-off-s", "vhost", 2
	offloaded.Host, offloaded.Guest = map[string]bool{"tso4": false, "csum": true}, map[string]bool{"tso4": false}
	q35 := base
	q35.Name, q35.Machine, q35.VCPU = "lab-kvm-q35-s", "q35", 2
	q35.VCPUPins, q35.EmulatorPin = []string{"2", "3"}, "0-1"
	mgmt := base
	mgmt.Name, mgmt.MgmtNetwork, mgmt.MgmtMAC = "lab-kvm-mgmt-s", "lab-kvm-jumbo-mgmt", "52:54:00:ab:cd:ef"
	seeded := q35
	seeded.Name, seeded.Seed = "lab-kvm-cloud-s", "lab-kvm-cloud-s-cidata.iso"
	seeded.Meta.Seed = seeded.Seed
	rings := base
	rings.Name, rings.RXQueueSize = "lab-kvm-rings-s", 1024
	router := mgmt
	router.Name, router.Network, router.Network2, router.MAC2 = "lab-kvm-fw-r", "lab-kvm-fw", "lab-kvm-fw-c", "52:54:00:65:43:21"
	router.Meta.Address, router.Meta.Role = "pair.fw.router", "router"
	inject := base
	inject.Name = "x'><evil/>"
	// QEMU's vmxnet3 on the jumbo link: the model and the tap's MTU, no
	// <driver> (queues, rings and host offloads are virtio's only).
	vmx := base
	vmx.Name, vmx.Model, vmx.Driver = "lab-kvm-vmx-s", "vmxnet3", ""
	for name, d := range map[string]domainSpec{"domain-tcg-direct-boot": base, "domain-vhost-offloads": offloaded, "domain-escaped": inject, "domain-q35-pinned": q35, "domain-management-nic": mgmt, "domain-cloud-init-seed": seeded, "domain-virtio-rx-ring": rings, "domain-router": router, "domain-vmxnet3": vmx} {
		t.Run(name, func(t *testing.T) {
			got, err := domainXML(d)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got, "<evil/>") {
				t.Fatalf("a name reached the XML unescaped:\n%s", got)
			}
			golden.Check(t, filepath.Join("testdata", name+".golden"), got)
		})
	}
}

// TestNICModelTuning: libvirt's <driver> knobs (queues, RX ring, host and
// guest offload bits) exist for virtio only; any other model that asks for
// one is refused when the XML is built (the plan refuses it first), and a
// model that asks for none gets no <driver>.
func TestNICModelTuning(t *testing.T) {
	base := domainSpec{Name: "lab-kvm-t-s", Type: "qemu", Machine: "pc", VCPU: 1, MemoryMiB: 512, Pool: "lab", Volume: "v.qcow2",
		Network: "lab-kvm-t", MAC: "52:54:00:12:34:56", Driver: "qemu"}
	for _, tt := range []struct {
		model   string
		tune    func(*domainSpec)
		wantErr bool
	}{
		{"vmxnet3", func(*domainSpec) {}, false},
		{"e1000e", func(*domainSpec) {}, false},
		{"vmxnet3", func(d *domainSpec) { d.Queues = 2 }, true},
		{"vmxnet3", func(d *domainSpec) { d.RXQueueSize = 1024 }, true},
		{"vmxnet3", func(d *domainSpec) { d.Host = map[string]bool{"tso4": false} }, true},
		{"e1000e", func(d *domainSpec) { d.Guest = map[string]bool{"tso4": false} }, true},
		{"virtio", func(d *domainSpec) { d.Queues = 2 }, false},
	} {
		d := base
		d.Model = tt.model
		tt.tune(&d)
		x, err := domainXML(d)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s %+v: err %v, want error %v", tt.model, d, err, tt.wantErr)
		}
		if err != nil || tt.model == "virtio" {
			continue
		}
		ifc, _, _ := strings.Cut(x[strings.Index(x, "<interface"):], "</interface>")
		if strings.Contains(ifc, "<driver") {
			t.Errorf("%s: a <driver> element reached the interface:\n%s", tt.model, x)
		}
	}
}

func TestNetworkXML(t *testing.T) {
	golden.Check(t, filepath.Join("testdata", "network-isolated-jumbo.golden"), networkXML(networkSpec{Name: "lab-kvm-jumbo", Bridge: "lbr1a2b3c", MTU: 9000, Network: [3]byte{198, 18, 7}, Tag: "lab/1 lab=kvm ws=0a1b2c3d addr=pair.jumbo.link"}))
	golden.Check(t, filepath.Join("testdata", "network-nat.golden"), networkXML(networkSpec{Name: "lab-kvm-nat", Bridge: "lbr4d5e6f", NAT: true, Network: [3]byte{198, 19, 200}}))
}

func TestSplitOffloads(t *testing.T) {
	tests := []struct {
		in          map[string]bool
		host, guest string
		wantErr     bool
	}{
		{map[string]bool{"tso4": false, "guest_tso4": false}, "tso4", "tso4", false},
		{map[string]bool{"mrg_rxbuf": true}, "mrg_rxbuf", "", false},
		{map[string]bool{"lro": true}, "", "", true},
	}
	for _, tc := range tests {
		h, g, err := splitOffloads(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%v: err %v", tc.in, err)
			continue
		}
		if err == nil && (strings.Join(keys(h), ",") != tc.host || strings.Join(keys(g), ",") != tc.guest) {
			t.Errorf("%v: host %v guest %v", tc.in, h, g)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSubnetsStayInBenchmarkRange(t *testing.T) {
	for _, name := range []string{"lab-a-p", "lab-b-q", "lab-kvm-jumbo", strings.Repeat("x", 200)} {
		s := subnetFor(name)
		if s[0] != 198 || (s[1] != 18 && s[1] != 19) {
			t.Errorf("%s: %v is outside 198.18.0.0/15", name, s)
		}
	}
}

// What domainXML writes, libvirtxml (libvirt's own Go mapping of its
// schema) reads back whole: writing what it read gives the same bytes, so
// no element or attribute lab sets falls outside the schema's types.
func TestDomainXMLRoundTrips(t *testing.T) {
	d := domainSpec{Name: "lab-kvm-rt-s", Type: "kvm", Emulator: "/usr/bin/qemu-system-x86_64", Machine: "q35", VCPU: 2, MemoryMiB: 512,
		Pool: "lab", Volume: "lab-kvm-rt-s.qcow2", Seed: "lab-kvm-rt-s-cidata.iso", Network: "lab-kvm-rt", MAC: "52:54:00:12:34:56",
		Model: "virtio", Driver: "vhost", Queues: 2, RXQueueSize: 1024, MTU: 9000,
		Host: map[string]bool{"csum": true, "mrg_rxbuf": false}, Guest: map[string]bool{"tso6": false},
		MgmtNetwork: "lab-kvm-rt-mgmt", MgmtMAC: "52:54:00:ab:cd:ef", VCPUPins: []string{"2", "3"}, EmulatorPin: "0-1",
		ConsoleLog: "/var/log/libvirt/qemu/lab-kvm-rt-s-console.log", Meta: labMeta{LabID: "kvm", Address: "pair.rt.server"}}
	x, err := domainXML(d)
	if err != nil {
		t.Fatal(err)
	}
	var dom libvirtxml.Domain
	if err := dom.Unmarshal(x); err != nil {
		t.Fatal(err)
	}
	again, err := marshalXML(&dom)
	if err != nil {
		t.Fatal(err)
	}
	if again != x {
		t.Errorf("read back and written again:\n%s\nwant:\n%s", again, x)
	}
	n := networkXML(networkSpec{Name: "lab-kvm-rt", Bridge: "lbr1", MTU: 9000, NAT: true, Network: [3]byte{198, 18, 1}, Tag: "t"})
	var net libvirtxml.Network
	if err := net.Unmarshal(n); err != nil {
		t.Fatal(err)
	}
	if net.DnsmasqOptions == nil || len(net.DnsmasqOptions.Option) != 1 || net.DnsmasqOptions.Option[0].Value != "no-ping" {
		t.Errorf("dnsmasq options read back: %+v", net.DnsmasqOptions)
	}
}

// TestDomainXMLAccel: the same guest under accel = "kvm" (the default) and
// "tcg", from the provider block to the XML. kvm is domain type kvm with a
// host-passthrough CPU; tcg is type qemu with QEMU's default CPU. The KVM
// suite runs TCG only (its /dev/kvm cannot boot stock kernels), so this is
// where the default path's XML is pinned.
func TestDomainXMLAccel(t *testing.T) {
	for _, tc := range []struct{ body, golden, typ string }{
		{``, "domain-accel-kvm", `<domain type="kvm">`},
		{`accel = "kvm"`, "domain-accel-kvm", `<domain type="kvm">`},
		{`accel = "tcg"`, "domain-accel-tcg", `<domain type="qemu">`},
	} {
		t.Run(tc.body, func(t *testing.T) {
			p := New()
			if d := p.Configure(context.Background(), hclBody(t, tc.body)); d.HasErrors() {
				t.Fatal(d)
			}
			d := domainSpec{Name: "lab-kvm-accel-s", Type: domainType(p.cfg.Accel), Emulator: p.cfg.Emulator, Machine: p.cfg.Machine,
				VCPU: 2, MemoryMiB: 1024, Pool: p.cfg.Pool, Volume: "lab-kvm-accel-s.qcow2", Network: "lab-kvm-accel",
				MAC: "52:54:00:12:34:56", Model: "virtio", ConsoleLog: "/var/log/libvirt/qemu/lab-kvm-accel-s-console.log",
				Meta: labMeta{LabID: "kvm", Address: "pair.accel.server", Role: "server", Volume: "lab-kvm-accel-s.qcow2", Pool: p.cfg.Pool}}
			got, err := domainXML(d)
			if err != nil {
				t.Fatal(err)
			}
			passthrough := strings.Contains(got, `<cpu mode="host-passthrough">`)
			if !strings.HasPrefix(got, tc.typ) || passthrough != (tc.typ == `<domain type="kvm">`) {
				t.Errorf("accel %q: want %s, host-passthrough CPU %v:\n%s", p.cfg.Accel, tc.typ, !passthrough, got)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden+".golden"), got)
		})
	}
}
