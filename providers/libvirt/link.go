package libvirt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// networkPrefix starts the name of every network lab creates.
const networkPrefix = "lab-"

// networkName is the libvirt network of a link; Delete derives it from the
// link's name alone.
func networkName(link string) string { return networkPrefix + link }

// mgmtNetworkName is the management network lab makes for a link's pair
// (management = "lab").
func mgmtNetworkName(link string) string { return networkPrefix + link + "-mgmt" }

// ManagementLab is the provider's management setting that makes lab create a
// management network per pair.
const ManagementLab = "lab"

// Link creates the pair's network: isolated (or NAT), with its own bridge,
// the link's MTU and a DHCP range. With network set in the provider block
// it creates nothing and attaches guests there.
func (p *Provider) Link(ctx context.Context, ls providers.LinkSpec) (_ machine.Instance, err error) {
	defer p.explain(&err)
	in := machine.Instance{Address: ls.Address, Provider: TypeName, Kind: "link", Name: ls.Name,
		Attrs: map[string]string{attrLabID: ls.LabID}}
	if ls.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(ls.MTU)
	}
	l, err := p.conn()
	if err != nil {
		return in, err
	}
	// The pool the guests need, before anything is made (pool.go): a
	// missing one used to fail only the first create, after the networks.
	if err := checkPool(l, p.cfg.URI, p.cfg.Pool, ""); err != nil {
		return machine.Instance{}, fmt.Errorf("%s: %w", ls.Address, err)
	}
	if lt, dev := p.cfg.linkDevice(); lt != "" {
		return p.deviceLink(l, ls, in, lt, dev)
	}
	if p.cfg.Network != "" {
		if _, err := l.NetworkLookupByName(p.cfg.Network); err != nil {
			return in, callErr("NetworkLookupByName", p.cfg.Network, err)
		}
		in.Attrs[attrNetwork], in.Attrs[attrOwned] = p.cfg.Network, "false"
		return in, nil
	}
	name := networkName(ls.Name)
	in.Attrs[attrNetwork], in.Attrs[attrOwned] = name, "true"
	in.Owner = ls.Owner()
	if err := p.deleteLink(l, in); err != nil {
		if errors.Is(err, providers.ErrNotOwned) {
			// Someone else's network: nothing of lab's exists to record.
			return machine.Instance{}, fmt.Errorf("%s: %w", ls.Address, err)
		}
		return in, fmt.Errorf("%s: remove leftover: %w", ls.Address, err)
	}
	bridge := "lab" + shortHash(ls.LabID+"\x00"+ls.Name)
	in.Attrs[attrBridge] = bridge
	// With a management network, nat applies to it: the measured link
	// stays isolated.
	linkNAT := p.cfg.NAT && p.cfg.Management != ManagementLab
	id, subnet, err := p.createNetwork(l, networkSpec{Name: name, Bridge: bridge, MTU: ls.MTU, NAT: linkNAT, Tag: in.Owner.Tag(ls.Address)})
	if err != nil {
		return in, err
	}
	in.ID, in.Attrs["subnet"] = id, subnet
	return in, p.linkManagement(l, ls, &in)
}

// deviceLink is a link on a host device lab does not own (link_bridge,
// link_macvtap): lab checks, through libvirt's interface API, that the
// device's MTU is the link's (recording it when the spec sets none),
// creates nothing on it, picks the /24 it will address the guests in, and
// makes the management network as for any link.
func (p *Provider) deviceLink(l *golibvirt.Libvirt, ls providers.LinkSpec, in machine.Instance, linkType, dev string) (machine.Instance, error) {
	attr := "link_bridge"
	if linkType == linkTypeDirect {
		attr = "link_macvtap"
	}
	have, err := deviceMTU(l, dev)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("%s: %s = %q: %w", ls.Address, attr, dev, err)
	}
	if err := checkDeviceMTU(attr, dev, ls.MTU, have); err != nil {
		return machine.Instance{}, fmt.Errorf("%s: %w", ls.Address, err)
	}
	in.Attrs["mtu"] = strconv.Itoa(have)
	in.Attrs[attrLinkType], in.Attrs[attrLinkDev], in.Attrs[attrOwned] = linkType, dev, "false"
	sn := subnetFor(networkName(ls.Name))
	in.Attrs["subnet"] = fmt.Sprintf("%d.%d.%d.0/24", sn[0], sn[1], sn[2])
	in.Owner = ls.Owner()
	if err := p.deleteLink(l, in); err != nil {
		if errors.Is(err, providers.ErrNotOwned) {
			return machine.Instance{}, fmt.Errorf("%s: %w", ls.Address, err)
		}
		return in, fmt.Errorf("%s: remove leftover: %w", ls.Address, err)
	}
	return in, p.linkManagement(l, ls, &in)
}

// linkManagement gives the link's pair its management network: one lab
// makes (management = "lab") or an existing one, recorded on in.
func (p *Provider) linkManagement(l *golibvirt.Libvirt, ls providers.LinkSpec, in *machine.Instance) error {
	switch p.cfg.Management {
	case "":
	case ManagementLab:
		// The pair's management network: SSH and leases, never measured.
		mname := mgmtNetworkName(ls.Name)
		in.Attrs[attrMgmtNetwork], in.Attrs[attrMgmtOwned] = mname, "true"
		_, msub, err := p.createNetwork(l, networkSpec{Name: mname, Bridge: "labm" + shortHash(ls.LabID+"\x00"+ls.Name),
			NAT: p.cfg.NAT, Tag: in.Owner.Tag(ls.Address + "/management")})
		if err != nil {
			return err
		}
		in.Attrs["mgmt_subnet"] = msub
	default:
		if _, err := l.NetworkLookupByName(p.cfg.Management); err != nil {
			return callErr("NetworkLookupByName", p.cfg.Management+" (management)", err)
		}
		in.Attrs[attrMgmtNetwork], in.Attrs[attrMgmtOwned] = p.cfg.Management, "false"
	}
	return nil
}

// createNetwork creates a lab network with a free /24 of 198.18.0.0/15
// (the next one when another network holds the first pick) and returns
// its UUID and subnet.
func (p *Provider) createNetwork(l *golibvirt.Libvirt, ns networkSpec) (id, subnet string, err error) {
	var lastErr error
	for try := 0; try < 8; try++ {
		salt := ns.Name
		if try > 0 {
			salt += "#" + strconv.Itoa(try)
		}
		ns.Network = subnetFor(salt)
		net, err := l.NetworkCreateXML(networkXML(ns))
		if err == nil {
			return uuidString(net.UUID), fmt.Sprintf("%d.%d.%d.0/24", ns.Network[0], ns.Network[1], ns.Network[2]), nil
		}
		lastErr = callErr("NetworkCreateXML", ns.Name, err)
		// Another network holds the subnet: try the next one.
		if !strings.Contains(err.Error(), "in use") && !strings.Contains(err.Error(), "overlap") {
			break
		}
	}
	return "", "", lastErr
}

// deleteLink destroys (and undefines, if persistent) a lab-owned network:
// one that carries in.Owner's tag in its metadata. A network of that name
// without it is refused (*providers.NotOwnedError), never removed.
func (p *Provider) deleteLink(l *golibvirt.Libvirt, in machine.Instance) error {
	if in.Attrs[attrLinkType] != "" {
		return p.deleteMgmtNetwork(l, in) // the device is never lab's
	}
	if in.Attrs[attrOwned] == "false" || (in.Attrs[attrOwned] == "" && p.cfg.Network != "") {
		return nil // an existing network: never lab's to remove
	}
	name := in.Attrs[attrNetwork]
	if name == "" {
		name = networkName(in.Name)
	}
	if err := deleteNetwork(l, in.Owner, name); err != nil {
		return err
	}
	return p.deleteMgmtNetwork(l, in)
}

// deleteMgmtNetwork removes the pair's management network, when lab made
// one (and, before a create, a leftover of one under this link's name).
func (p *Provider) deleteMgmtNetwork(l *golibvirt.Libvirt, in machine.Instance) error {
	if in.Attrs[attrMgmtOwned] == "false" {
		return nil
	}
	mname := in.Attrs[attrMgmtNetwork]
	if mname == "" && p.cfg.Management == ManagementLab && (in.Attrs[attrNetwork] == networkName(in.Name) || in.Attrs[attrLinkType] != "") {
		mname = mgmtNetworkName(in.Name)
	}
	if mname == "" {
		return nil
	}
	return deleteNetwork(l, in.Owner, mname)
}

// deleteNetwork destroys and undefines network name if it carries o's tag;
// one without it is refused, one that does not exist is done.
func deleteNetwork(l *golibvirt.Libvirt, o machine.Owner, name string) error {
	n, tag, exists, err := networkOwner(l, name)
	if err != nil || !exists {
		return err
	}
	labID := ""
	if t, _, ok := machine.ParseTag(tag); ok {
		labID = t.Lab
	} else if tag == "" && o.Workspace == "" {
		labID = o.Lab // lab 0.1 tagged no network; its state names it exactly
	}
	if !owns(o, tag, labID) {
		return notOwned(o, "network", name, tag)
	}
	if err := l.NetworkDestroy(n); err != nil && !isNotFound(err) && !isNotRunning(err) {
		return callErr("NetworkDestroy", name, err)
	}
	// A persistent network (defined by hand or by an older lab) is
	// undefined too; a transient one is gone after destroy.
	if err := l.NetworkUndefine(n); err != nil && !isNotFound(err) && !isNotRunning(err) {
		return callErr("NetworkUndefine", name, err)
	}
	return nil
}
