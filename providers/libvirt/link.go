package libvirt

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/providers"
)

// networkPrefix starts the name of every network lab creates.
const networkPrefix = "lab-"

// networkName is the libvirt network of a link; Delete derives it from the
// link's name alone.
func networkName(link string) string { return networkPrefix + link }

// Link creates the pair's network: isolated (or NAT), with its own bridge,
// the link's MTU and a DHCP range. With network set in the provider block
// it creates nothing and attaches guests there.
func (p *Provider) Link(ctx context.Context, ls providers.LinkSpec) (_ providers.Instance, err error) {
	defer p.explain(&err)
	in := providers.Instance{Address: ls.Address, Provider: TypeName, Kind: "link", Name: ls.Name,
		Attrs: map[string]string{attrLabID: ls.LabID}}
	if ls.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(ls.MTU)
	}
	l, err := p.conn()
	if err != nil {
		return in, err
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
			return providers.Instance{}, fmt.Errorf("%s: %w", ls.Address, err)
		}
		return in, fmt.Errorf("%s: remove leftover: %w", ls.Address, err)
	}
	bridge := "lab" + shortHash(ls.LabID+"\x00"+ls.Name)
	in.Attrs[attrBridge] = bridge
	var lastErr error
	for try := 0; try < 8; try++ {
		salt := name
		if try > 0 {
			salt += "#" + strconv.Itoa(try)
		}
		ns := networkSpec{Name: name, Bridge: bridge, MTU: ls.MTU, NAT: p.cfg.NAT, Network: subnetFor(salt), Tag: in.Owner.Tag(ls.Address)}
		net, err := l.NetworkCreateXML(networkXML(ns))
		if err == nil {
			in.ID = uuidString(net.UUID)
			in.Attrs["subnet"] = fmt.Sprintf("%d.%d.%d.0/24", ns.Network[0], ns.Network[1], ns.Network[2])
			return in, nil
		}
		lastErr = callErr("NetworkCreateXML", name, err)
		// Another network holds the subnet: try the next one.
		if !strings.Contains(err.Error(), "in use") && !strings.Contains(err.Error(), "overlap") {
			break
		}
	}
	return in, lastErr
}

// deleteLink destroys (and undefines, if persistent) a lab-owned network:
// one that carries in.Owner's tag in its metadata. A network of that name
// without it is refused (*providers.NotOwnedError), never removed.
func (p *Provider) deleteLink(l *golibvirt.Libvirt, in providers.Instance) error {
	if in.Attrs[attrOwned] == "false" || (in.Attrs[attrOwned] == "" && p.cfg.Network != "") {
		return nil // an existing network: never lab's to remove
	}
	name := in.Attrs[attrNetwork]
	if name == "" {
		name = networkName(in.Name)
	}
	n, tag, exists, err := networkOwner(l, name)
	if err != nil || !exists {
		return err
	}
	labID := ""
	if t, _, ok := providers.ParseTag(tag); ok {
		labID = t.Lab
	} else if tag == "" && in.Owner.Workspace == "" {
		labID = in.Owner.Lab // lab 0.1 tagged no network; its state names it exactly
	}
	if !owns(in.Owner, tag, labID) {
		return notOwned(in.Owner, "network", name, tag)
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
