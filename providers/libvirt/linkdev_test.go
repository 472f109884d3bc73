package libvirt

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// link_bridge/link_macvtap: what Configure refuses, at the attribute.
func TestConfigureLinkDevice(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"bridge", "link_bridge = \"br0\"\nmanagement = \"lab\"\n", ""},
		{"macvtap", "link_macvtap = \"eth1\"\nmanagement = \"default\"\n", ""},
		{"no management", "link_bridge = \"br0\"\n", `lab.hcl:1,15-20: Missing management; link_bridge = "br0" needs management`},
		{"both", "link_bridge = \"br0\"\nlink_macvtap = \"eth1\"\nmanagement = \"lab\"\n", "link_bridge and link_macvtap both attach"},
		{"with network", "link_macvtap = \"eth1\"\nnetwork = \"bench\"\nmanagement = \"default\"\n", "lab.hcl:1,16-22: Conflicting arguments; link_macvtap attaches"},
		{"bad name", "link_bridge = \"br0; reboot\"\nmanagement = \"lab\"\n", `lab.hcl:1,15-28: Invalid link_bridge; link_bridge = "br0; reboot" is not a Linux interface name`},
		{"too long", "link_macvtap = \"abcdefghijklmnop\"\nmanagement = \"lab\"\n", "Invalid link_macvtap"},
		{"with cpu_pin", "link_bridge = \"br0\"\ncpu_pin {\n  server = \"0\"\n}\n", `lab.hcl:1,15-20: Missing management`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, d := configure(t, tc.src)
			if tc.want == "" {
				if d.HasErrors() {
					t.Fatal(d)
				}
				return
			}
			if !d.HasErrors() || !strings.Contains(d.Error(), tc.want) {
				t.Fatalf("diagnostics %q, want %q", d.Error(), tc.want)
			}
		})
	}
}

// The device's MTU is read from libvirt's interface XML (as virsh
// iface-dumpxml prints it on this machine's libvirtd, udev backend) and a
// link MTU other than it is refused, naming the device.
func TestDeviceMTU(t *testing.T) {
	const x = "<interface type='bridge' name='br0'>\n  <mtu size='1500'/>\n  <link state='up'/>\n  <mac address='52:54:00:aa:bb:cc'/>\n</interface>\n"
	n, err := parseDeviceMTU(x, "br0")
	if err != nil || n != 1500 {
		t.Fatalf("parse: %d, %v", n, err)
	}
	if _, err := parseDeviceMTU("<interface type='ethernet' name='x'/>", "x"); err == nil || !strings.Contains(err.Error(), "no MTU") {
		t.Errorf("no <mtu>: %v", err)
	}
	if err := checkDeviceMTU("link_bridge", "br0", 0, 1500); err != nil {
		t.Errorf("no link MTU: %v", err)
	}
	if err := checkDeviceMTU("link_bridge", "br0", 1500, 1500); err != nil {
		t.Errorf("equal: %v", err)
	}
	err = checkDeviceMTU("link_macvtap", "eth1", 9000, 1500)
	if err == nil || !strings.Contains(err.Error(), "link asks MTU 9000 but link_macvtap eth1 has MTU 1500") || !strings.Contains(err.Error(), "never changes") {
		t.Errorf("mismatch: %v", err)
	}
}

// The benchmark NIC on a host bridge and on macvtap (the management NIC
// first, as the device types require).
func TestDomainXMLLinkDevice(t *testing.T) {
	base := domainSpec{Name: "lab-kvm-dev-s", Type: "qemu", Emulator: "/usr/bin/qemu-system-x86_64", Machine: "q35",
		VCPU: 1, MemoryMiB: 768, Pool: "lab", Volume: "lab-kvm-dev-s.qcow2", MAC: "52:54:00:12:34:56", Model: "virtio", MTU: 1500,
		MgmtNetwork: "lab-kvm-dev-mgmt", MgmtMAC: "52:54:00:ab:cd:ef", RXQueueSize: 512,
		Meta: labMeta{LabID: "kvm", Address: "pair.dev.server", Role: "server", Volume: "lab-kvm-dev-s.qcow2", Pool: "lab", Tag: "lab/1 lab=kvm ws=0a1b2c3d addr=pair.dev.server"}}
	bridge, direct := base, base
	bridge.LinkType, bridge.LinkDev = linkTypeBridge, "br0"
	direct.LinkType, direct.LinkDev = linkTypeDirect, "eth1"
	for name, d := range map[string]domainSpec{"domain-link-bridge": bridge, "domain-link-macvtap": direct} {
		got, err := domainXML(d)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", name+".golden"), got)
	}
}

// Server .2, client .3 in the link's /24; the commands per OS.
func TestLinkHostAddr(t *testing.T) {
	if s, c := linkHostAddr([3]byte{198, 18, 7}, "server"), linkHostAddr([3]byte{198, 18, 7}, "client"); s != "198.18.7.2" || c != "198.18.7.3" {
		t.Errorf("server %s client %s", s, c)
	}
	if c := providers.StaticAddress("freebsd", "vtnet1", "198.18.7.2/24"); len(c) != 1 || strings.Join(c[0].Argv, " ") != "ifconfig vtnet1 inet 198.18.7.2/24 up" {
		t.Errorf("freebsd: %v", c)
	}
	if c := providers.StaticAddress("linux", "enp2s0", "198.18.7.3/24"); len(c) != 3 || strings.Join(c[1].Argv, " ") != "ip addr add 198.18.7.3/24 dev enp2s0" {
		t.Errorf("linux: %v", c)
	}
}

// TestPlaceLinkOnDevice: a guest on a host device gets lab's static
// address of the link's /24 (.2 server, .3 client), or the spec's when the
// pair gives one (a cross pair's end, whose other end is on that network
// already); a libvirt block on a device can be one end of a cross pair.
func TestPlaceLinkOnDevice(t *testing.T) {
	p, d := configure(t, "link_bridge = \"br0\"\nmanagement = \"lab\"\n")
	if d.HasErrors() {
		t.Fatal(d)
	}
	if c := p.Capabilities(); !c.ExistingNetwork || !c.LinkAddresses {
		t.Errorf("on a host device: existing network %v, link addresses %v", c.ExistingNetwork, c.LinkAddresses)
	}
	link := machine.Instance{Attrs: map[string]string{attrLinkType: linkTypeBridge, attrLinkDev: "br0", "subnet": "198.18.5.0/24"}}
	for _, tc := range []struct{ role, spec, want string }{
		{"server", "", "198.18.5.2/24"},
		{"client", "", "198.18.5.3/24"},
		{"server", "198.18.250.7/25", "198.18.250.7/25"},
	} {
		c := newCreation(p, machine.Machine{Address: "pair.x." + tc.role, Role: tc.role, Name: "x-" + tc.role, LabID: "l", Link: link, LinkAddress: tc.spec})
		if err := c.placeLink(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := c.in.Attrs[attrStaticAddr]; got != tc.want || c.staticAddr+got[strings.Index(got, "/"):] != tc.want {
			t.Errorf("%s with address %q: %q (%s), want %q", tc.role, tc.spec, got, c.staticAddr, tc.want)
		}
	}
	if p, _ := configure(t, ""); p.Capabilities().ExistingNetwork {
		t.Error("lab's own networks are not an existing network")
	}
}
