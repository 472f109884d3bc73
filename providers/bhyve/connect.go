package bhyve

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/providers"
)

// SSHRetry is how long Connect keeps trying while a guest's sshd starts.
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address found at
// create, as the template's ssh {} block says. lab must reach that
// address directly (an existing switch on the lab's network, or a
// lab-made one with an uplink); there is no jump through the host yet.
func (p *Provider) Connect(ctx context.Context, in providers.Instance) (guest.Transport, error) {
	return providers.ConnectGuest(ctx, in, p.dial, SSHRetry)
}

// List finds a lab's VMs, ZFS clones and interfaces by name prefix
// (description for interfaces), for `lab destroy -orphans`.
func (p *Provider) List(ctx context.Context, o providers.Owner) ([]providers.Instance, error) {
	labID := o.Lab // objects of this back end carry the lab id only so far
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
	var found []providers.Instance
	for n, ours := range machines {
		if ours {
			name := strings.TrimPrefix(n, "lab-")
			found = append(found, providers.Instance{Address: "orphan." + name, Provider: TypeName, Kind: "machine", ID: n, Name: name})
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
		found = append(found, providers.Instance{Address: "orphan." + name, Provider: TypeName, Kind: "link", Name: name})
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Kind+found[i].Name < found[j].Kind+found[j].Name })
	return found, nil
}

func sortStrings(s []string) { sort.Strings(s) }
