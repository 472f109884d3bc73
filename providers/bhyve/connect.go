package bhyve

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// SSHRetry is how long Connect keeps trying while a guest's sshd starts.
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address found at
// create, as the template's ssh {} block says. With jump_via_host the
// connection goes through the bhyve host (as ssh -J), which reaches
// guests on any switch; otherwise lab must reach the address directly
// (an existing switch on the lab's network, or a lab-made one with an
// uplink).
func (p *Provider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	dial := p.dial
	if p.cfg.JumpViaHost {
		hc, err := p.hostConfig()
		if err != nil {
			return nil, err
		}
		dial = func(ctx context.Context, name string, c labssh.Config) (guest.Transport, error) {
			c.Jump = &hc
			return p.dial(ctx, name, c)
		}
	}
	return providers.ConnectGuest(ctx, in, dial, SSHRetry)
}

// List finds what carries o's exact tag, for `lab destroy -orphans`:
// machines by their ZFS dataset's lab:owner, links by their bridge's
// description (see owner.go). Raw-mode taps go with their machine.
func (p *Provider) List(ctx context.Context, o machine.Owner) ([]machine.Instance, error) {
	if o.Workspace == "" {
		return p.listByName(ctx, o.Lab)
	}
	dss, err := p.taggedDatasets(ctx, "filesystem,volume")
	if err != nil {
		return nil, err
	}
	var found []machine.Instance
	for name, tag := range dss {
		child, under := strings.CutPrefix(name, p.cfg.Datastore+"/")
		if !under || strings.Contains(child, "/") || !o.Owns(tag) {
			continue
		}
		_, addr, _ := machine.ParseTag(tag)
		found = append(found, machine.Instance{Address: addr, Provider: TypeName, Kind: "machine", ID: child,
			Name: strings.TrimPrefix(child, "lab-"), Owner: o, Attrs: map[string]string{"vm": child}})
	}
	ifs, err := p.interfaces(ctx)
	if err != nil {
		return found, err
	}
	for name, in := range ifs {
		if !o.Owns(in.Desc) {
			continue
		}
		_, addr, _ := machine.ParseTag(in.Desc)
		l := machine.Instance{Address: addr, Provider: TypeName, Kind: "link", Owner: o}
		if sw, ok := strings.CutPrefix(name, "vm-"); ok && p.cfg.Backend != BackendRaw {
			l.ID, l.Name, l.Attrs = sw, sw, map[string]string{"switch": sw}
		} else if p.cfg.Backend == BackendRaw && strings.HasPrefix(name, "bridge") {
			l.ID, l.Name, l.Attrs = name, name, map[string]string{"bridge": name}
		} else {
			continue
		}
		found = append(found, l)
	}
	if p.cfg.Backend != BackendRaw {
		vale, err := p.ownedValeSwitches(ctx, o)
		if err != nil {
			return found, err
		}
		found = append(found, vale...)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Kind+found[i].Name < found[j].Kind+found[j].Name })
	return found, nil
}

// ownedValeSwitches are the VALE switches whose owner record in
// system.conf is o's exact tag (see valeTag).
func (p *Provider) ownedValeSwitches(ctx context.Context, o machine.Owner) ([]machine.Instance, error) {
	types, err := p.switchTypes(ctx)
	if err != nil {
		return nil, err
	}
	var found []machine.Instance
	for _, sw := range sortedKeys(types) {
		if types[sw] != "vale" {
			continue
		}
		tag, err := p.valeTag(ctx, sw)
		if err != nil {
			return found, err
		}
		if !o.Owns(tag) {
			continue
		}
		_, addr, _ := machine.ParseTag(tag)
		found = append(found, machine.Instance{Address: addr, Provider: TypeName, Kind: "link", Owner: o,
			ID: sw, Name: sw, Attrs: map[string]string{"switch": sw}})
	}
	return found, nil
}

// listByName is List for a lab recorded without a workspace (lab 0.1),
// whose objects carry no tag: VMs, clones and interface descriptions
// named "lab-<lab>-…".
func (p *Provider) listByName(ctx context.Context, labID string) ([]machine.Instance, error) {
	prefix := Prefix(labID)
	machines := map[string]bool{}
	if p.cfg.Backend == BackendRaw {
		names, err := p.vmmNames(ctx)
		if err != nil {
			return nil, err
		}
		out, err := p.run(ctx, "zfs", "list", "-H", "-o", "name", "-t", "filesystem,volume", "-r", p.cfg.Datastore)
		if err != nil {
			return nil, err
		}
		for _, ds := range strings.Fields(out) {
			names = append(names, strings.TrimPrefix(ds, p.cfg.Datastore+"/"))
		}
		for _, n := range names {
			machines[n] = strings.HasPrefix(n, prefix)
		}
	} else {
		out, err := p.run(ctx, "vm", "list")
		if err != nil {
			return nil, err
		}
		for n := range ParseVMList(out) {
			machines[n] = strings.HasPrefix(n, prefix)
		}
	}
	var found []machine.Instance
	for n, ours := range machines {
		if ours {
			name := strings.TrimPrefix(n, "lab-")
			found = append(found, machine.Instance{Address: "orphan." + name, Provider: TypeName, Kind: "machine", ID: n, Name: name,
				Owner: machine.Owner{Lab: labID}})
		}
	}
	out, err := p.run(ctx, "ifconfig")
	if err != nil {
		return found, err
	}
	links := map[string]bool{}
	for _, d := range ParseDescriptions(out) {
		// A machine's tap carries the machine's name and goes with it.
		if strings.HasPrefix(d, prefix) && !machines[d] {
			links[strings.TrimPrefix(d, "lab-")] = true
		}
	}
	for name := range links {
		found = append(found, machine.Instance{Address: "orphan." + name, Provider: TypeName, Kind: "link", Name: name,
			Owner: machine.Owner{Lab: labID}})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Kind+found[i].Name < found[j].Kind+found[j].Name })
	return found, nil
}

func sortStrings(s []string) { sort.Strings(s) }
