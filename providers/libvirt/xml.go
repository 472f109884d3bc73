package libvirt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"

	"libvirt.org/go/libvirtxml"
)

// MetadataNS is the XML namespace of the <metadata> element lab writes into
// every domain it defines; List finds a lab's domains by it.
const MetadataNS = "https://github.com/lab-bench/lab/libvirt/1"

// labMeta is lab's element inside a domain's <metadata>.
type labMeta struct {
	XMLName xml.Name `xml:"lab"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	LabID   string   `xml:"lab_id"`
	Address string   `xml:"address"`
	Role    string   `xml:"role,omitempty"`
	Volume  string   `xml:"volume,omitempty"`
	Pool    string   `xml:"pool,omitempty"`
	// Tag is the owner's machine.Owner.Tag: Delete, leftover removal and
	// List match it exactly. The volume named here is deleted with the
	// domain: a domain that carries lab's tag is what proves the volume
	// lab's (volumes carry no metadata of their own).
	Tag string `xml:"tag,omitempty"`
	// Seed is the cloud-init seed volume (in Pool), deleted with the
	// domain like Volume.
	Seed string `xml:"seed,omitempty"`
}

func parseMeta(s string) (labMeta, error) {
	var m labMeta
	err := xml.Unmarshal([]byte(s), &m)
	return m, err
}

// domainSpec is everything the domain XML is made from.
type domainSpec struct {
	Name      string
	Type      string // "kvm" or "qemu"
	Emulator  string
	Machine   string
	VCPU      int
	MemoryMiB int
	// The overlay, as a pool and volume name (<disk type='volume'>): the
	// domain can be defined, naming its volume, before the volume exists.
	Pool    string
	Volume  string
	Kernel  string
	Initrd  string
	Cmdline string
	Network string
	// LinkType is "" (a libvirt network), "bridge" (LinkDev is an
	// existing Linux bridge) or "direct" (macvtap on host NIC LinkDev).
	LinkType string
	LinkDev  string
	MAC      string
	Model    string
	Driver   string // "" (libvirt's choice), "qemu" or "vhost"
	Queues   int
	// RXQueueSize is the host side's RX virtio ring size (<driver
	// rx_queue_size>); 0: QEMU's default (256).
	RXQueueSize int
	MTU         int
	Host        map[string]bool // host-side offload bits ("csum", "tso4", ...)
	Guest       map[string]bool // guest-side offload bits ("guest_csum" in the spec)
	// Seed is the cloud-init seed volume in Pool, attached as a read-only virtio disk;
	// empty: none.
	Seed string
	// MgmtNetwork and MgmtMAC are the management NIC (SSH, leases), the
	// domain's first; empty: the benchmark NIC is the only one.
	MgmtNetwork string
	MgmtMAC     string
	// Network2 and MAC2 are a router's second benchmark NIC, on the
	// client's lab network (the first, Network, is on the server's),
	// with the first's model, MTU, queues, ring and offload bits; empty:
	// none.
	Network2 string
	MAC2     string
	// VCPUPins is the host cpuset of each vCPU (<vcpupin>), EmulatorPin
	// that of QEMU's own threads (<emulatorpin>); empty: not pinned.
	VCPUPins    []string
	EmulatorPin string
	// ConsoleLog is a file on the libvirt host that keeps everything the
	// guest writes to its serial console (boot messages, a panic).
	ConsoleLog string
	Meta       labMeta
}

// hostBits and guestBits are the offload attributes libvirt knows on
// <driver><host …/> and <driver><guest …/>.
var (
	hostBits  = []string{"csum", "gso", "tso4", "tso6", "ecn", "ufo", "mrg_rxbuf"}
	guestBits = []string{"csum", "tso4", "tso6", "ecn", "ufo"}
)

// splitOffloads maps the pair's nic { host = {…} } keys onto libvirt's host
// and guest elements: "tso4" is a host bit, "guest_tso4" a guest bit.
func splitOffloads(bits map[string]bool) (host, guest map[string]bool, err error) {
	host, guest = map[string]bool{}, map[string]bool{}
	keys := make([]string, 0, len(bits))
	for k := range bits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "guest_") && contains(guestBits, strings.TrimPrefix(k, "guest_")):
			guest[strings.TrimPrefix(k, "guest_")] = bits[k]
		case strings.HasPrefix(k, "host_") && contains(hostBits, strings.TrimPrefix(k, "host_")):
			host[strings.TrimPrefix(k, "host_")] = bits[k]
		case contains(hostBits, k):
			host[k] = bits[k]
		default:
			return nil, nil, fmt.Errorf("nic host offload %q is not one libvirt knows (host: %s; guest: guest_%s)",
				k, strings.Join(hostBits, " "), strings.Join(guestBits, " guest_"))
		}
	}
	return host, guest, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// domainXML renders the domain definition through libvirtxml's typed
// structs (libvirt.org/go/libvirtxml), which escape every value.
func domainXML(d domainSpec) (string, error) {
	meta := d.Meta
	meta.Xmlns = MetadataNS
	mb, err := xml.Marshal(meta)
	if err != nil {
		return "", err
	}
	devices, err := domainDevices(d)
	if err != nil {
		return "", err
	}
	dom := libvirtxml.Domain{
		Type: d.Type, Name: d.Name, Title: "lab " + d.Meta.Address,
		Metadata:   &libvirtxml.DomainMetadata{XML: string(mb)},
		Memory:     &libvirtxml.DomainMemory{Value: uint(d.MemoryMiB), Unit: "MiB"},
		VCPU:       &libvirtxml.DomainVCPU{Value: uint(d.VCPU)},
		CPUTune:    domainCPUTune(d),
		OS:         domainOS(d),
		Features:   &libvirtxml.DomainFeatureList{ACPI: &libvirtxml.DomainFeature{}, APIC: &libvirtxml.DomainFeatureAPIC{}},
		Clock:      &libvirtxml.DomainClock{Offset: "utc"},
		OnPoweroff: "destroy", OnReboot: "restart", OnCrash: "destroy",
		Devices: devices,
	}
	if d.Type == "kvm" {
		dom.CPU = &libvirtxml.DomainCPU{Mode: "host-passthrough"}
	}
	return marshalXML(&dom)
}

// domainType is the <domain type> for accel: "kvm" (hardware
// virtualisation; domainXML adds a host-passthrough CPU) or, for "tcg",
// "qemu" (QEMU's emulation).
func domainType(accel string) string {
	if accel == "tcg" {
		return "qemu"
	}
	return "kvm"
}

// marshalXML is what libvirtxml's Marshal methods do (two-space indent),
// with the final newline the files lab writes and tests compare end with.
func marshalXML(v any) (string, error) {
	b, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// domainCPUTune is the <cputune> of a pinned domain; nil when not pinned.
func domainCPUTune(d domainSpec) *libvirtxml.DomainCPUTune {
	if len(d.VCPUPins) == 0 && d.EmulatorPin == "" {
		return nil
	}
	var t libvirtxml.DomainCPUTune
	for i, set := range d.VCPUPins {
		t.VCPUPin = append(t.VCPUPin, libvirtxml.DomainCPUTuneVCPUPin{VCPU: uint(i), CPUSet: set})
	}
	if d.EmulatorPin != "" {
		t.EmulatorPin = &libvirtxml.DomainCPUTuneEmulatorPin{CPUSet: d.EmulatorPin}
	}
	return &t
}

// domainOS boots the disk, or the kernel and initrd named in the spec.
func domainOS(d domainSpec) *libvirtxml.DomainOS {
	os := &libvirtxml.DomainOS{Type: &libvirtxml.DomainOSType{Arch: "x86_64", Machine: d.Machine, Type: "hvm"}}
	if d.Kernel == "" {
		os.BootDevices = []libvirtxml.DomainBootDevice{{Dev: "hd"}}
		return os
	}
	os.Kernel, os.Initrd, os.Cmdline = d.Kernel, d.Initrd, d.Cmdline
	return os
}

// domainDevices is the domain's disks, NICs, console, agent channel and rng.
func domainDevices(d domainSpec) (*libvirtxml.DomainDeviceList, error) {
	link, err := linkInterface(d)
	if err != nil {
		return nil, err
	}
	port := uint(0)
	serial := libvirtxml.DomainSerial{Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
		Target: &libvirtxml.DomainSerialTarget{Port: &port}}
	if d.ConsoleLog != "" {
		serial.Log = &libvirtxml.DomainChardevLog{File: d.ConsoleLog, Append: "off"}
	}
	dev := &libvirtxml.DomainDeviceList{
		// An explicit emulator spares libvirt a refresh of its capabilities,
		// which probes every QEMU binary again for each definition (about two
		// minutes per domain on a host where KVM probing is slow).
		Emulator: d.Emulator,
		Disks:    []libvirtxml.DomainDisk{volumeDisk(d.Pool, d.Volume, "qcow2", "vda")},
		Serials:  []libvirtxml.DomainSerial{serial},
		Consoles: []libvirtxml.DomainConsole{{Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
			Target: &libvirtxml.DomainConsoleTarget{Type: "serial", Port: &port}}},
		Channels: []libvirtxml.DomainChannel{{Source: &libvirtxml.DomainChardevSource{UNIX: &libvirtxml.DomainChardevSourceUNIX{}},
			Target: &libvirtxml.DomainChannelTarget{VirtIO: &libvirtxml.DomainChannelTargetVirtIO{Name: "org.qemu.guest_agent.0"}}}},
		MemBalloon: &libvirtxml.DomainMemBalloon{Model: "none"},
		RNGs: []libvirtxml.DomainRNG{{Model: "virtio",
			Backend: &libvirtxml.DomainRNGBackend{Random: &libvirtxml.DomainRNGBackendRandom{Device: "/dev/urandom"}}}},
	}
	if d.Seed != "" {
		// The NoCloud seed is found by its label (cidata) on any block
		// device, so it goes on virtio like the root disk: every cloud
		// image has virtio_blk, while an IDE or SATA CD-ROM needs drivers
		// a lean guest may leave out (lab's own test image blacklists
		// ata_piix, which pc's CD-ROM needs) and costs probing under TCG.
		seed := volumeDisk(d.Pool, d.Seed, "raw", "vdb")
		seed.ReadOnly = &libvirtxml.DomainDiskReadOnly{}
		dev.Disks = append(dev.Disks, seed)
	}
	if d.MgmtNetwork != "" {
		dev.Interfaces = append(dev.Interfaces, libvirtxml.DomainInterface{
			Source: &libvirtxml.DomainInterfaceSource{Network: &libvirtxml.DomainInterfaceSourceNetwork{Network: d.MgmtNetwork}},
			MAC:    &libvirtxml.DomainInterfaceMAC{Address: d.MgmtMAC},
			Model:  &libvirtxml.DomainInterfaceModel{Type: "virtio"}})
	}
	dev.Interfaces = append(dev.Interfaces, link)
	if d.Network2 != "" {
		link2 := d
		link2.Network, link2.MAC, link2.LinkType = d.Network2, d.MAC2, ""
		ifc, err := linkInterface(link2)
		if err != nil {
			return nil, err
		}
		dev.Interfaces = append(dev.Interfaces, ifc)
	}
	return dev, nil
}

// volumeDisk is a virtio disk on volume vol of pool (<disk type='volume'>).
func volumeDisk(pool, vol, format, target string) libvirtxml.DomainDisk {
	return libvirtxml.DomainDisk{Device: "disk",
		Driver: &libvirtxml.DomainDiskDriver{Name: "qemu", Type: format},
		Source: &libvirtxml.DomainDiskSource{Volume: &libvirtxml.DomainDiskSourceVolume{Pool: pool, Volume: vol}},
		Target: &libvirtxml.DomainDiskTarget{Dev: target, Bus: "virtio"}}
}

// linkInterface is the benchmark NIC: on a libvirt network, a Linux bridge
// or macvtap, with the spec's model, MTU, queues, ring and offload bits.
func linkInterface(d domainSpec) (libvirtxml.DomainInterface, error) {
	var src libvirtxml.DomainInterfaceSource
	switch d.LinkType {
	case linkTypeBridge:
		src.Bridge = &libvirtxml.DomainInterfaceSourceBridge{Bridge: d.LinkDev}
	case linkTypeDirect:
		src.Direct = &libvirtxml.DomainInterfaceSourceDirect{Dev: d.LinkDev, Mode: "bridge"}
	default:
		src.Network = &libvirtxml.DomainInterfaceSourceNetwork{Network: d.Network}
	}
	ifc := libvirtxml.DomainInterface{Source: &src, MAC: &libvirtxml.DomainInterfaceMAC{Address: d.MAC},
		Model: &libvirtxml.DomainInterfaceModel{Type: d.Model}}
	// A macvtap device takes its lower device's MTU (checked equal to the
	// link's at Link); a tap on a bridge or network gets the link's.
	if d.MTU > 0 && d.LinkType != linkTypeDirect {
		ifc.MTU = &libvirtxml.DomainInterfaceMTU{Size: uint(d.MTU)}
	}
	if d.Model != "virtio" {
		if len(d.Host) > 0 || len(d.Guest) > 0 || d.Queues > 1 || d.RXQueueSize > 0 {
			return ifc, fmt.Errorf("nic model %q has no offload bits, queues or ring sizes in libvirt (only virtio has)", d.Model)
		}
		return ifc, nil
	}
	drv := libvirtxml.DomainInterfaceDriver{Name: d.Driver, Host: driverHost(d.Host), Guest: driverGuest(d.Guest)}
	if d.Queues > 1 {
		drv.Queues = uint(d.Queues)
	}
	if d.RXQueueSize > 0 {
		drv.RXQueueSize = uint(d.RXQueueSize)
	}
	if drv != (libvirtxml.DomainInterfaceDriver{}) {
		ifc.Driver = &drv
	}
	return ifc, nil
}

// driverHost is <driver><host …/>: the host-side offload bits set (see
// hostBits); nil when none is.
func driverHost(bits map[string]bool) *libvirtxml.DomainInterfaceDriverHost {
	if len(bits) == 0 {
		return nil
	}
	var h libvirtxml.DomainInterfaceDriverHost
	for k, v := range bits {
		f := map[string]*string{"csum": &h.CSum, "gso": &h.GSO, "tso4": &h.TSO4, "tso6": &h.TSO6,
			"ecn": &h.ECN, "ufo": &h.UFO, "mrg_rxbuf": &h.MrgRXBuf}[k]
		if f != nil {
			*f = onOff(v)
		}
	}
	return &h
}

// driverGuest is <driver><guest …/>: the guest-side offload bits set (see
// guestBits); nil when none is.
func driverGuest(bits map[string]bool) *libvirtxml.DomainInterfaceDriverGuest {
	if len(bits) == 0 {
		return nil
	}
	var g libvirtxml.DomainInterfaceDriverGuest
	for k, v := range bits {
		f := map[string]*string{"csum": &g.CSum, "tso4": &g.TSO4, "tso6": &g.TSO6, "ecn": &g.ECN, "ufo": &g.UFO}[k]
		if f != nil {
			*f = onOff(v)
		}
	}
	return &g
}

// networkSpec is a lab-owned network.
type networkSpec struct {
	Name    string
	Bridge  string
	MTU     int
	NAT     bool
	Network [3]byte // the /24's first three octets
	Tag     string  // the owner's tag, in the network's <metadata>
}

// netMeta is lab's element in a network's <metadata> (kept by libvirt 9.0
// in the network XML, though its metadata API came later).
type netMeta struct {
	XMLName xml.Name `xml:"lab"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Tag     string   `xml:"tag"`
}

// networkTag reads lab's tag out of a network's XML; "" when it has none.
func networkTag(netXML string) string {
	var n struct {
		Metadata struct {
			Lab []struct {
				XMLName xml.Name
				Tag     string `xml:"tag"`
			} `xml:"lab"`
		} `xml:"metadata"`
	}
	if xml.Unmarshal([]byte(netXML), &n) != nil {
		return ""
	}
	for _, l := range n.Metadata.Lab {
		if l.XMLName.Space == MetadataNS {
			return l.Tag
		}
	}
	return ""
}

// networkXML renders an isolated (or NAT) network with its own bridge and a
// DHCP range. Addresses come from 198.18.0.0/15, the benchmarking range
// (RFC 2544), one /24 per link. Its dnsmasq offers addresses without first
// pinging them: dnsmasq waits up to 3 s for an answer to each ping, one
// DHCPDISCOVER after the other (two guests booting together got their
// leases 3.7 and 6 s after their links came up). The range is lab's own,
// so no host outside DHCP can hold one of its addresses. no-ping goes to
// dnsmasq as it is, in libvirt's dnsmasq namespace (libvirt ≥ 5.6), which
// libvirtxml's NetworkDnsmasqOptions carries.
func networkXML(n networkSpec) string {
	p := fmt.Sprintf("%d.%d.%d", n.Network[0], n.Network[1], n.Network[2])
	net := libvirtxml.Network{Name: n.Name,
		Bridge: &libvirtxml.NetworkBridge{Name: n.Bridge, STP: "off", Delay: "0"},
		IPs: []libvirtxml.NetworkIP{{Address: p + ".1", Netmask: "255.255.255.0",
			DHCP: &libvirtxml.NetworkDHCP{Ranges: []libvirtxml.NetworkDHCPRange{{Start: p + ".10", End: p + ".250"}}}}},
		DnsmasqOptions: &libvirtxml.NetworkDnsmasqOptions{Option: []libvirtxml.NetworkDnsmasqOption{{Value: "no-ping"}}},
	}
	if n.Tag != "" {
		mb, _ := xml.Marshal(netMeta{Xmlns: MetadataNS, Tag: n.Tag}) // strings only: cannot fail
		net.Metadata = &libvirtxml.NetworkMetadata{XML: string(mb)}
	}
	if n.NAT {
		net.Forward = &libvirtxml.NetworkForward{Mode: "nat"}
	}
	if n.MTU > 0 {
		net.MTU = &libvirtxml.NetworkMTU{Size: uint(n.MTU)}
	}
	s, _ := marshalXML(&net) // strings and numbers only: cannot fail
	return s
}

// subnetFor picks the /24 for a link: 198.18.0.0/15 holds 512 of them; the
// index is derived from the network name so that names, not counters, decide.
func subnetFor(name string) [3]byte {
	h := sha256.Sum256([]byte(name))
	n := (int(h[0])<<8 | int(h[1])) % 512
	return [3]byte{198, byte(18 + n/256), byte(n % 256)}
}

// shortHash is 8 hex digits of sha256(s), for names with length limits
// (bridge names have 15 bytes at most).
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}

// macFor derives a stable locally administered MAC from a machine's name, in
// libvirt's 52:54:00 prefix so tools recognise it as a QEMU NIC.
func macFor(labID, name string) string {
	h := sha256.Sum256([]byte(labID + "\x00" + name))
	return fmt.Sprintf("52:54:00:%02x:%02x:%02x", h[0], h[1], h[2])
}

// volumeXML renders a volume of format: a qcow2 overlay backed by the
// template's volume, a plain qcow2 volume for a full clone (which
// StorageVolCreateXMLFrom fills), or the raw cloud-init seed.
func volumeXML(name string, capacity uint64, format, backingPath, backingFormat string) string {
	v := libvirtxml.StorageVolume{Name: name,
		Capacity: &libvirtxml.StorageVolumeSize{Unit: "bytes", Value: capacity},
		Target:   &libvirtxml.StorageVolumeTarget{Format: &libvirtxml.StorageVolumeTargetFormat{Type: format}}}
	if backingPath != "" {
		v.BackingStore = &libvirtxml.StorageVolumeBackingStore{Path: backingPath,
			Format: &libvirtxml.StorageVolumeTargetFormat{Type: backingFormat}}
	}
	s, _ := marshalXML(&v) // strings and numbers only: cannot fail
	return s
}
