package libvirt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
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
	// Tag is the owner's providers.Owner.Tag: Delete, leftover removal and
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

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}

func bitsAttrs(bits map[string]bool, order []string) string {
	var b strings.Builder
	for _, k := range order {
		if v, ok := bits[k]; ok {
			fmt.Fprintf(&b, " %s='%s'", k, onOff(v))
		}
	}
	return b.String()
}

// domainXML renders the domain definition.
func domainXML(d domainSpec) (string, error) {
	meta := d.Meta
	meta.Xmlns = MetadataNS
	mb, err := xml.Marshal(meta)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<domain type='%s'>\n", esc(d.Type))
	fmt.Fprintf(&b, "  <name>%s</name>\n", esc(d.Name))
	fmt.Fprintf(&b, "  <title>lab %s</title>\n", esc(d.Meta.Address))
	fmt.Fprintf(&b, "  <metadata>%s</metadata>\n", mb)
	fmt.Fprintf(&b, "  <memory unit='MiB'>%d</memory>\n", d.MemoryMiB)
	fmt.Fprintf(&b, "  <vcpu>%d</vcpu>\n", d.VCPU)
	if len(d.VCPUPins) > 0 || d.EmulatorPin != "" {
		b.WriteString("  <cputune>\n")
		for i, set := range d.VCPUPins {
			fmt.Fprintf(&b, "    <vcpupin vcpu='%d' cpuset='%s'/>\n", i, esc(set))
		}
		if d.EmulatorPin != "" {
			fmt.Fprintf(&b, "    <emulatorpin cpuset='%s'/>\n", esc(d.EmulatorPin))
		}
		b.WriteString("  </cputune>\n")
	}
	b.WriteString("  <os>\n")
	if d.Machine != "" {
		fmt.Fprintf(&b, "    <type arch='x86_64' machine='%s'>hvm</type>\n", esc(d.Machine))
	} else {
		b.WriteString("    <type arch='x86_64'>hvm</type>\n")
	}
	if d.Kernel != "" {
		fmt.Fprintf(&b, "    <kernel>%s</kernel>\n", esc(d.Kernel))
		if d.Initrd != "" {
			fmt.Fprintf(&b, "    <initrd>%s</initrd>\n", esc(d.Initrd))
		}
		fmt.Fprintf(&b, "    <cmdline>%s</cmdline>\n", esc(d.Cmdline))
	} else {
		b.WriteString("    <boot dev='hd'/>\n")
	}
	b.WriteString("  </os>\n  <features><acpi/><apic/></features>\n")
	if d.Type == "kvm" {
		b.WriteString("  <cpu mode='host-passthrough'/>\n")
	}
	b.WriteString("  <clock offset='utc'/>\n  <on_poweroff>destroy</on_poweroff>\n  <on_reboot>restart</on_reboot>\n  <on_crash>destroy</on_crash>\n")
	b.WriteString("  <devices>\n")
	// An explicit emulator spares libvirt a refresh of its capabilities,
	// which probes every QEMU binary again for each definition (about two
	// minutes per domain on a host where KVM probing is slow).
	if d.Emulator != "" {
		fmt.Fprintf(&b, "    <emulator>%s</emulator>\n", esc(d.Emulator))
	}
	b.WriteString("    <disk type='volume' device='disk'>\n      <driver name='qemu' type='qcow2'/>\n")
	fmt.Fprintf(&b, "      <source pool='%s' volume='%s'/>\n", esc(d.Pool), esc(d.Volume))
	b.WriteString("      <target dev='vda' bus='virtio'/>\n    </disk>\n")
	if d.Seed != "" {
		// The NoCloud seed is found by its label (cidata) on any block
		// device, so it goes on virtio like the root disk: every cloud
		// image has virtio_blk, while an IDE or SATA CD-ROM needs drivers
		// a lean guest may leave out (lab's own test image blacklists
		// ata_piix, which pc's CD-ROM needs) and costs probing under TCG.
		b.WriteString("    <disk type='volume' device='disk'>\n      <driver name='qemu' type='raw'/>\n")
		fmt.Fprintf(&b, "      <source pool='%s' volume='%s'/>\n", esc(d.Pool), esc(d.Seed))
		b.WriteString("      <target dev='vdb' bus='virtio'/>\n      <readonly/>\n    </disk>\n")
	}
	if d.MgmtNetwork != "" {
		b.WriteString("    <interface type='network'>\n")
		fmt.Fprintf(&b, "      <source network='%s'/>\n", esc(d.MgmtNetwork))
		fmt.Fprintf(&b, "      <mac address='%s'/>\n", esc(d.MgmtMAC))
		b.WriteString("      <model type='virtio'/>\n    </interface>\n")
	}
	switch d.LinkType {
	case linkTypeBridge:
		b.WriteString("    <interface type='bridge'>\n")
		fmt.Fprintf(&b, "      <source bridge='%s'/>\n", esc(d.LinkDev))
	case linkTypeDirect:
		b.WriteString("    <interface type='direct'>\n")
		fmt.Fprintf(&b, "      <source dev='%s' mode='bridge'/>\n", esc(d.LinkDev))
	default:
		b.WriteString("    <interface type='network'>\n")
		fmt.Fprintf(&b, "      <source network='%s'/>\n", esc(d.Network))
	}
	fmt.Fprintf(&b, "      <mac address='%s'/>\n", esc(d.MAC))
	fmt.Fprintf(&b, "      <model type='%s'/>\n", esc(d.Model))
	// A macvtap device takes its lower device's MTU (checked equal to the
	// link's at Link); a tap on a bridge or network gets the link's.
	if d.MTU > 0 && d.LinkType != linkTypeDirect {
		fmt.Fprintf(&b, "      <mtu size='%d'/>\n", d.MTU)
	}
	if d.Model == "virtio" {
		attrs := ""
		if d.Driver != "" {
			attrs += fmt.Sprintf(" name='%s'", esc(d.Driver))
		}
		if d.Queues > 1 {
			attrs += fmt.Sprintf(" queues='%d'", d.Queues)
		}
		if d.RXQueueSize > 0 {
			attrs += fmt.Sprintf(" rx_queue_size='%d'", d.RXQueueSize)
		}
		hb, gb := bitsAttrs(d.Host, hostBits), bitsAttrs(d.Guest, guestBits)
		if attrs != "" || hb != "" || gb != "" {
			fmt.Fprintf(&b, "      <driver%s>", attrs)
			if hb != "" {
				fmt.Fprintf(&b, "<host%s/>", hb)
			}
			if gb != "" {
				fmt.Fprintf(&b, "<guest%s/>", gb)
			}
			b.WriteString("</driver>\n")
		}
	} else if len(d.Host) > 0 || len(d.Guest) > 0 || d.Queues > 1 || d.RXQueueSize > 0 {
		return "", fmt.Errorf("nic model %q has no offload bits, queues or ring sizes in libvirt (only virtio has)", d.Model)
	}
	b.WriteString("    </interface>\n")
	b.WriteString("    <serial type='pty'>")
	if d.ConsoleLog != "" {
		fmt.Fprintf(&b, "<log file='%s' append='off'/>", esc(d.ConsoleLog))
	}
	b.WriteString("<target port='0'/></serial>\n    <console type='pty'><target type='serial' port='0'/></console>\n")
	b.WriteString("    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>\n")
	b.WriteString("    <memballoon model='none'/>\n    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>\n")
	b.WriteString("  </devices>\n</domain>\n")
	return b.String(), nil
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

// dnsmasqNS is libvirt's XML namespace for options passed to a network's
// dnsmasq as they are (libvirt ≥ 5.6).
const dnsmasqNS = "http://libvirt.org/schemas/network/dnsmasq/1.0"

// networkXML renders an isolated (or NAT) network with its own bridge and a
// DHCP range. Addresses come from 198.18.0.0/15, the benchmarking range
// (RFC 2544), one /24 per link. Its dnsmasq offers addresses without first
// pinging them: dnsmasq waits up to 3 s for an answer to each ping, one
// DHCPDISCOVER after the other (two guests booting together got their
// leases 3.7 and 6 s after their links came up). The range is lab's own,
// so no host outside DHCP can hold one of its addresses.
func networkXML(n networkSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<network xmlns:dnsmasq='%s'>\n", dnsmasqNS)
	fmt.Fprintf(&b, "  <name>%s</name>\n", esc(n.Name))
	if n.Tag != "" {
		mb, _ := xml.Marshal(netMeta{Xmlns: MetadataNS, Tag: n.Tag}) // strings only: cannot fail
		fmt.Fprintf(&b, "  <metadata>%s</metadata>\n", mb)
	}
	if n.NAT {
		b.WriteString("  <forward mode='nat'/>\n")
	}
	fmt.Fprintf(&b, "  <bridge name='%s' stp='off' delay='0'/>\n", esc(n.Bridge))
	if n.MTU > 0 {
		fmt.Fprintf(&b, "  <mtu size='%d'/>\n", n.MTU)
	}
	p := fmt.Sprintf("%d.%d.%d", n.Network[0], n.Network[1], n.Network[2])
	fmt.Fprintf(&b, "  <ip address='%s.1' netmask='255.255.255.0'>\n", p)
	fmt.Fprintf(&b, "    <dhcp><range start='%s.10' end='%s.250'/></dhcp>\n", p, p)
	b.WriteString("  </ip>\n")
	b.WriteString("  <dnsmasq:options><dnsmasq:option value='no-ping'/></dnsmasq:options>\n")
	b.WriteString("</network>\n")
	return b.String()
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

// volumeXML renders a qcow2 overlay backed by the template's volume (or a
// plain volume for a full clone, which StorageVolCreateXMLFrom fills).
func volumeXML(name string, capacity uint64, backingPath, backingFormat string) string {
	var b strings.Builder
	b.WriteString("<volume>\n")
	fmt.Fprintf(&b, "  <name>%s</name>\n", esc(name))
	fmt.Fprintf(&b, "  <capacity unit='bytes'>%d</capacity>\n", capacity)
	b.WriteString("  <target><format type='qcow2'/></target>\n")
	if backingPath != "" {
		fmt.Fprintf(&b, "  <backingStore><path>%s</path><format type='%s'/></backingStore>\n", esc(backingPath), esc(backingFormat))
	}
	b.WriteString("</volume>\n")
	return b.String()
}
