package libvirt

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Link types of the benchmark NIC besides a libvirt network.
const (
	linkTypeBridge = "bridge" // <interface type='bridge'>: an existing Linux bridge
	linkTypeDirect = "direct" // <interface type='direct'>: macvtap on a host NIC
)

// attrLinkType and attrLinkDev record, on the link and its machines, a
// benchmark link on a host device ("bridge" or "direct", and the device).
const (
	attrLinkType = "link_type"
	attrLinkDev  = "link_dev"
)

// ifName is what Linux takes as an interface name (IFNAMSIZ 16 with the
// NUL, no '/', no blanks).
var ifName = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,15}$`)

// checkLinkDevice refuses link_bridge/link_macvtap settings the back end
// cannot honour: both at once, beside network, a malformed device name,
// and without management — nothing answers DHCP on a device lab does not
// own, so lab sets the link addresses over SSH on the management NIC.
// Diagnostics go to cd, at the link_bridge/link_macvtap value.
func checkLinkDevice(c Config, cd *providers.ConfigDiags) {
	attr, dev := "link_bridge", c.LinkBridge
	switch {
	case c.LinkBridge != "" && c.LinkMacvtap != "":
		cd.Errorf(attr, "Conflicting arguments", "link_bridge and link_macvtap both attach the benchmark NIC: set one.")
		return
	case c.LinkMacvtap != "":
		attr, dev = "link_macvtap", c.LinkMacvtap
	case c.LinkBridge == "":
		return
	}
	if !ifName.MatchString(dev) {
		cd.Errorf(attr, "Invalid "+attr, "%s = %q is not a Linux interface name (1-15 of letters, digits, _ . : -).", attr, dev)
	}
	if c.Network != "" {
		cd.Errorf(attr, "Conflicting arguments", "%s attaches the benchmark NIC to a host device; network names a libvirt network for it: set one.", attr)
	}
	if c.Management == "" {
		cd.Errorf(attr, "Missing management", "%s = %q needs management (\"lab\" or an existing network): lab does not own %s and nothing answers DHCP on it, "+
			"so lab logs in over the management NIC and sets each guest's link address itself.", attr, dev, dev)
	}
}

// linkDevice is the benchmark link's host device from the provider block:
// its link type and name; "" when the link is a libvirt network.
func (c Config) linkDevice() (linkType, dev string) {
	switch {
	case c.LinkBridge != "":
		return linkTypeBridge, c.LinkBridge
	case c.LinkMacvtap != "":
		return linkTypeDirect, c.LinkMacvtap
	}
	return "", ""
}

// ifaceXML is what lab reads of libvirt's interface XML (the udev and
// netcf backends both give <mtu size>).
type ifaceXML struct {
	MTU struct {
		Size string `xml:"size,attr"`
	} `xml:"mtu"`
}

// deviceMTU asks libvirtd for dev's MTU (virInterfaceLookupByName,
// virInterfaceGetXMLDesc: the device as the libvirt host sees it, in the
// daemon's network namespace).
func deviceMTU(l *golibvirt.Libvirt, dev string) (int, error) {
	i, err := l.InterfaceLookupByName(dev)
	if err != nil {
		return 0, callErr("InterfaceLookupByName", dev, err)
	}
	x, err := l.InterfaceGetXMLDesc(i, 0)
	if err != nil {
		return 0, callErr("InterfaceGetXMLDesc", dev, err)
	}
	return parseDeviceMTU(x, dev)
}

// readDeviceLink reports whether a link on a host device is still there:
// the device (whose MTU must still be the one recorded) and, when lab made
// it, the pair's management network.
func (p *Provider) readDeviceLink(l *golibvirt.Libvirt, in machine.Instance) (machine.Instance, bool, error) {
	dev := in.Attrs[attrLinkDev]
	mtu, err := deviceMTU(l, dev)
	if isNotFound(err) {
		return in, false, nil
	} else if err != nil {
		return in, false, err
	}
	if strconv.Itoa(mtu) != in.Attrs["mtu"] {
		return in, false, nil // someone changed it: the link is not the one recorded
	}
	if in.Attrs[attrMgmtOwned] == "true" {
		n, err := l.NetworkLookupByName(in.Attrs[attrMgmtNetwork])
		if isNotFound(err) {
			return in, false, nil
		} else if err != nil {
			return in, false, callErr("NetworkLookupByName", in.Attrs[attrMgmtNetwork], err)
		}
		active, err := l.NetworkIsActive(n)
		if err != nil {
			return in, false, callErr("NetworkIsActive", in.Attrs[attrMgmtNetwork], err)
		}
		return in, active == 1, nil
	}
	return in, true, nil
}

// parseDeviceMTU reads <mtu size> from an interface's XML.
func parseDeviceMTU(x, dev string) (int, error) {
	var v ifaceXML
	if err := xml.Unmarshal([]byte(x), &v); err != nil {
		return 0, fmt.Errorf("interface %s: parse XML: %w", dev, err)
	}
	n, err := strconv.Atoi(v.MTU.Size)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("interface %s: libvirt's XML gives no MTU (<mtu size>)", dev)
	}
	return n, nil
}

// checkDeviceMTU is an error naming the device when the link's MTU (0: not
// set) is not the device's: lab never changes a device it does not own.
func checkDeviceMTU(attr, dev string, want, have int) error {
	if want > 0 && want != have {
		return fmt.Errorf("the link asks MTU %d but %s %s has MTU %d, and lab never changes a device it does not own: "+
			"set link { mtu = %d } or change %s's MTU yourself", want, attr, dev, have, have, dev)
	}
	return nil
}

// linkHostAddr is a machine's static address on a link on a host device:
// .2 for the server, .3 for the client in the link's /24 (subnetFor of the
// link's network name, in 198.18.0.0/15, RFC 2544's benchmarking range).
func linkHostAddr(subnet [3]byte, role string) string {
	host := 2
	if role == "client" {
		host = 3
	}
	return fmt.Sprintf("%d.%d.%d.%d", subnet[0], subnet[1], subnet[2], host)
}
