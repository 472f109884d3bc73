package local

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Link creates the veth pair joining a pair's namespaces. Both ends start
// in the host namespace, tagged with the owner's alias; Create moves each
// end into its machine's namespace. A leftover pair of the same name (a
// crash before state was written) is replaced when its tag is this lab's
// and workspace's, and refused otherwise.
func (p *Provider) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	o := l.Owner()
	s, c := vethNames(o, l.Address)
	for _, end := range []string{s, c} {
		if err := p.deleteVeth(ctx, o, end, false); err != nil {
			return machine.Instance{}, fmt.Errorf("link %s: remove leftover %s: %w", l.Address, end, err)
		}
	}
	argv := []string{"ip", "link", "add", s}
	if l.MTU > 0 {
		argv = append(argv, "mtu", strconv.Itoa(l.MTU))
	}
	argv = append(argv, "type", "veth", "peer", "name", c)
	if l.MTU > 0 {
		argv = append(argv, "mtu", strconv.Itoa(l.MTU))
	}
	// The kernel ignores IFLA_IFALIAS on RTM_NEWLINK (`ip link add … alias
	// X` creates the pair without it, Linux 6.x), so the tag is a second
	// command: an interrupt between the two leaves an untagged pair that
	// only the pending record names. Delete adopts it (see owner.go).
	if _, err := p.exec(ctx, argv...); err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: create veth: %w", l.Address, err)
	}
	in := machine.Instance{
		Address: l.Address, Provider: TypeName, Kind: "link", ID: s, Name: s + "/" + c, Owner: o,
		Attrs: map[string]string{"server_if": s, "client_if": c, "index": strconv.Itoa(l.Index)},
	}
	for _, end := range []string{s, c} {
		if _, err := p.exec(ctx, "ip", "link", "set", "dev", end, "alias", o.Tag(l.Address)); err != nil {
			_ = p.Delete(context.WithoutCancel(ctx), in)
			return machine.Instance{}, fmt.Errorf("link %s: tag %s: %w", l.Address, end, err)
		}
	}
	if p.bridged() {
		return p.bridgeLink(ctx, l, in)
	}
	sa, ca := linkAddrs(l.Index)
	in.Attrs["server_addr"], in.Attrs["client_addr"] = sa, ca
	if l.IPv6 {
		in.Attrs["server_addr6"], in.Attrs["client_addr6"] = linkAddrs6(o, l.Index)
	}
	return in, nil
}

// deleteVeth deletes the host-side veth end dev when it exists and carries
// o's tag — or, for a pending record (pending), no tag at all; one that is
// gone is fine, one that is not o's is refused.
func (p *Provider) deleteVeth(ctx context.Context, o machine.Owner, dev string, pending bool) error {
	tag, exists, err := p.ifAlias(ctx, "", dev)
	if err != nil || !exists {
		return err
	}
	if err := claim(o, pending, "interface", dev, tag); err != nil {
		return err
	}
	if _, err := p.exec(ctx, "ip", "link", "del", dev); err != nil && !notFound(err) {
		return err
	}
	return nil
}
