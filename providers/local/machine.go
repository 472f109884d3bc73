package local

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Create makes a machine's namespace, moves its end of the link into it as
// eth0, addresses it and brings it up. A router takes the server-side
// link's far end as eth0 and the client-side link's near end as eth1 and
// forwards between them; the ends of a routed pair route via it.
func (p *Provider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	ns := Namespace(m.Name)
	nics := machineNICs(m)
	for _, n := range nics {
		if n.end == "" || n.addr == "" {
			return machine.Instance{}, fmt.Errorf("create %s: its link has no %s end", m.Address, m.Role)
		}
	}
	o := m.Owner()
	in := machine.Instance{
		Address: m.Address, Provider: TypeName, Kind: "machine", ID: ns, Name: ns, Owner: o,
		Attrs:    map[string]string{"netns": ns, "role": m.Role},
		Endpoint: &machine.Endpoint{Iface: "eth0", Addr: nics[0].addr, Addr6: nics[0].addr6},
	}
	server, client := cpuSets(m.VCPU, p.CPUs)
	switch m.Role {
	case "server":
		in.Endpoint.CPUs = server
	case "client":
		in.Endpoint.CPUs = client
	case "router":
		in.Endpoint.Iface2 = "eth1"
		in.Attrs["addr2"] = nics[1].addr
		if nics[1].addr6 != "" {
			in.Attrs["addr2_6"] = nics[1].addr6
		}
	}
	if id, err := p.TemplateID(ctx, m); err == nil {
		in.Endpoint.TemplateID = id
	}
	// A namespace of the same name carrying this lab's and workspace's tag
	// is a leftover of an interrupted create: remove it so the new machine
	// starts clean. One without that tag is refused, never removed (a
	// half-made one of a pending record was removed by the engine's Delete
	// of that record before this create).
	if err := p.deleteNamespace(ctx, o, ns, false); err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: remove leftover namespace %s: %w", m.Address, ns, err)
	}
	// The namespace is tagged before it gets its name (netns.go).
	if err := p.addNamespace(ctx, ns, o.Tag(m.Address)); err != nil {
		return in, fmt.Errorf("create %s (namespace %s): %w", m.Address, ns, err)
	}
	for _, argv := range createSteps(m, ns, nics) {
		if _, err := p.exec(ctx, argv...); err != nil {
			return in, fmt.Errorf("create %s (namespace %s): %w", m.Address, ns, err)
		}
	}
	return in, nil
}

// nic is one of a machine's link ends: the host-side veth name, its
// addresses and the name it gets in the namespace.
type nic struct{ end, addr, addr6, name, prefix string }

// machineNICs are m's link ends: a router takes the server-side link's
// far end as eth0 and the client-side link's near end as eth1; an end
// its own side of its link as eth0.
//
// A bridged block's link (bridge.go) has one end for the namespace, at the
// block's address, whatever the machine's role.
func machineNICs(m machine.Machine) []nic {
	if m.Link.Attrs["bridge"] != "" {
		return []nic{{end: m.Link.Attrs["ns_if"], addr: m.Link.Attrs["addr"], name: "eth0", prefix: m.Link.Attrs["prefix"]}}
	}
	if m.Role == "router" {
		return []nic{
			{m.Link.Attrs["client_if"], m.Link.Attrs["client_addr"], m.Link.Attrs["client_addr6"], "eth0", ""},
			{m.Link2.Attrs["server_if"], m.Link2.Attrs["server_addr"], m.Link2.Attrs["server_addr6"], "eth1", ""},
		}
	}
	return []nic{{m.Link.Attrs[m.Role+"_if"], m.Link.Attrs[m.Role+"_addr"], m.Link.Attrs[m.Role+"_addr6"], "eth0", ""}}
}

// createSteps are the commands that set a made namespace up: loopback,
// each link end moved in, renamed, addressed (IPv6 too when its link has
// an IPv6 address) and up; forwarding on a router (IPv6 forwarding only
// when it routes IPv6), and a default route via the router on a routed
// pair's ends.
func createSteps(m machine.Machine, ns string, nics []nic) [][]string {
	steps := [][]string{{"ip", "-n", ns, "link", "set", "dev", "lo", "up"}}
	for _, n := range nics {
		steps = append(steps,
			[]string{"ip", "link", "set", "dev", n.end, "netns", ns},
			[]string{"ip", "-n", ns, "link", "set", "dev", n.end, "name", n.name},
			[]string{"ip", "-n", ns, "addr", "add", n.addr + "/" + cmp.Or(n.prefix, "30"), "dev", n.name})
		if n.addr6 != "" {
			steps = append(steps, ipv6Steps(ns, n.name, n.addr6)...)
		}
		steps = append(steps, []string{"ip", "-n", ns, "link", "set", "dev", n.name, "up"})
	}
	peer := map[string]string{"server": "client", "client": "server"}[m.Role]
	switch {
	case m.Role == "router":
		steps = append(steps, []string{"ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1"})
		if nics[0].addr6 != "" {
			// In the router's namespace only: the host's own forwarding
			// setting is another namespace's and stays as it is.
			steps = append(steps, []string{"ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1"})
		}
	case m.Routed && peer != "":
		steps = append(steps, []string{"ip", "-n", ns, "route", "add", "default", "via", m.Link.Attrs[peer+"_addr"]})
		if gw := m.Link.Attrs[peer+"_addr6"]; gw != "" && nics[0].addr6 != "" {
			steps = append(steps, []string{"ip", "-n", ns, "-6", "route", "add", "default", "via", gw})
		}
	}
	return steps
}

// Read reports whether the namespace or veth still exists.
func (p *Provider) Read(ctx context.Context, in machine.Instance) (machine.Instance, bool, error) {
	switch in.Kind {
	case "link":
		// Once Create moved its ends into the machines' namespaces (as
		// eth0), the link lives there: look for its tag on either side.
		o := ownerOf(in)
		if o.Workspace == "" {
			_, err := p.exec(ctx, "ip", "link", "show", "dev", in.ID)
			if notFound(err) {
				return in, false, nil
			}
			return in, err == nil, err
		}
		found, err := p.linkEnds(ctx, o.Tag(in.Address))
		return in, found > 0, err
	default:
		names, err := p.namespaces(ctx)
		if err != nil {
			return in, false, err
		}
		for _, n := range names {
			if n == in.ID {
				return in, true, nil
			}
		}
		return in, false, nil
	}
}

// Delete removes a namespace (after killing what runs in it) or a veth
// pair. Removing something that is gone succeeds.
func (p *Provider) Delete(ctx context.Context, in machine.Instance) error {
	if in.Kind == "link" {
		var errs []error
		ends := []string{in.Attrs["server_if"], in.Attrs["client_if"]}
		if ends[0] == "" {
			// Recorded as pending before the create: derive the names.
			ends[0], ends[1] = vethNames(ownerOf(in), in.Address)
		}
		for _, end := range ends {
			if end == "" {
				continue
			}
			if err := p.deleteVeth(ctx, ownerOf(in), end, in.Pending); err != nil {
				errs = append(errs, fmt.Errorf("delete %s: %w", in.Address, err))
			}
		}
		return errors.Join(errs...)
	}
	ns := in.ID
	if ns == "" {
		ns = Namespace(in.Name) // recorded as pending before the create
	}
	if err := p.deleteNamespace(ctx, ownerOf(in), ns, in.Pending); err != nil {
		return fmt.Errorf("delete %s: %w", in.Address, err)
	}
	return nil
}

// ownerOf is whose in is: the engine's record, or for an instance that
// predates it (lab 0.1 state) the lab id it recorded.
func ownerOf(in machine.Instance) machine.Owner {
	if in.Owner.Lab != "" {
		return in.Owner
	}
	return machine.Owner{Lab: in.Attrs["lab_id"]}
}

// deleteNamespace removes namespace ns (killing what runs in it) when it
// exists and its loopback carries o's tag — or, for a pending record
// (pending), no tag at all. A half-made namespace (the file `ip netns add`
// creates before it mounts the namespace on it) is removed on the same
// terms: it cannot carry a tag.
func (p *Provider) deleteNamespace(ctx context.Context, o machine.Owner, ns string, pending bool) error {
	if !strings.HasPrefix(ns, NamespacePrefix) {
		return fmt.Errorf("refusing to delete namespace %q: not made by lab", ns)
	}
	names, err := p.namespaces(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, n := range names {
		found = found || n == ns
	}
	if !found {
		return nil
	}
	if halfMade(ns) {
		if !pending {
			return &providers.NotOwnedError{Kind: "half-made namespace (a file in " + netnsDir + " that is no namespace)", Name: ns, Owner: o}
		}
		// `ip netns del` unmounts (nothing here) and unlinks the file.
		if _, err := p.exec(ctx, "ip", "netns", "del", ns); err != nil && !notFound(err) {
			return err
		}
		return nil
	}
	tag, _, err := p.ifAlias(ctx, ns, "lo")
	if err != nil {
		return err
	}
	if err := claim(o, pending, "namespace", ns, tag); err != nil {
		return err
	}
	if out, err := p.exec(ctx, "ip", "netns", "pids", ns); err == nil {
		for _, f := range strings.Fields(string(out)) {
			var pid int
			// Never lab itself: one of its threads may be in the
			// namespace for a moment (addNamespace).
			if _, err := fmt.Sscan(f, &pid); err == nil && pid > 1 && pid != os.Getpid() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	if _, err := p.exec(ctx, "ip", "netns", "del", ns); err != nil && !notFound(err) {
		return err
	}
	return nil
}

// namespaces lists the network namespaces on this machine.
func (p *Provider) namespaces(ctx context.Context) ([]string, error) {
	out, err := p.exec(ctx, "ip", "-j", "netns", "list")
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	var list []struct {
		Name string `json:"name"`
	}
	if len(strings.TrimSpace(string(out))) > 0 {
		if err := json.Unmarshal(out, &list); err != nil {
			return nil, fmt.Errorf("list namespaces: parse %q: %w", out, err)
		}
	}
	names := make([]string, len(list))
	for i, l := range list {
		names[i] = l.Name
	}
	return names, nil
}

// List finds every namespace and host-side veth whose tag is o's: lab and
// workspace equal exactly (a namespace's tag is its loopback's alias, a
// veth's its own). Only namespaces named "lab-…" are read at all.
func (p *Provider) List(ctx context.Context, o machine.Owner) ([]machine.Instance, error) {
	names, err := p.namespaces(ctx)
	if err != nil {
		return nil, err
	}
	var out []machine.Instance
	for _, n := range names {
		if !strings.HasPrefix(n, NamespacePrefix) {
			continue
		}
		tag, exists, err := p.ifAlias(ctx, n, "lo")
		if err != nil || !exists || !o.Owns(tag) {
			continue // gone meanwhile, unreadable or not o's: not an orphan of this lab
		}
		owner, addr, _ := machine.ParseTag(tag)
		out = append(out, machine.Instance{Address: "orphan:" + addr, Provider: TypeName, Kind: "machine", ID: n, Name: n, Owner: owner,
			Attrs: map[string]string{"netns": n}})
	}
	links, err := p.exec(ctx, "ip", "-j", "link", "show", "type", "veth")
	if err != nil {
		return out, fmt.Errorf("list veths: %w", err)
	}
	var ifs []struct {
		Name  string `json:"ifname"`
		Alias string `json:"ifalias"`
	}
	if err := json.Unmarshal(links, &ifs); err != nil {
		return out, fmt.Errorf("list veths: %w", err)
	}
	for _, i := range ifs {
		if o.Owns(i.Alias) {
			owner, addr, _ := machine.ParseTag(i.Alias)
			out = append(out, machine.Instance{Address: "orphan:" + addr, Provider: TypeName, Kind: "link", ID: i.Name, Name: i.Name, Owner: owner,
				Attrs: map[string]string{"server_if": i.Name}})
		}
	}
	return out, nil
}

// linkEnds counts the veth ends tagged tag, in the host namespace and in
// every namespace lab made.
func (p *Provider) linkEnds(ctx context.Context, tag string) (int, error) {
	count := func(argv ...string) (int, error) {
		out, err := p.exec(ctx, argv...)
		if err != nil {
			return 0, err
		}
		var ifs []struct {
			Alias string `json:"ifalias"`
		}
		if err := json.Unmarshal(out, &ifs); err != nil {
			return 0, fmt.Errorf("%v: parse: %w", argv, err)
		}
		n := 0
		for _, i := range ifs {
			if i.Alias == tag {
				n++
			}
		}
		return n, nil
	}
	n, err := count("ip", "-j", "link", "show", "type", "veth")
	if err != nil {
		return 0, err
	}
	names, err := p.namespaces(ctx)
	if err != nil {
		return n, err
	}
	for _, ns := range names {
		if !strings.HasPrefix(ns, NamespacePrefix) {
			continue
		}
		m, err := count("ip", "-n", ns, "-j", "link", "show", "type", "veth")
		if err != nil {
			continue // the namespace went away meanwhile
		}
		n += m
	}
	return n, nil
}
