package bhyve

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
)

// dialFunc opens a transport to a guest; dialSSH unless a test replaces it.
type dialFunc func(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error)

func dialSSH(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error) {
	t, err := ssh.Dial(ctx, guestName, c)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// SSHRetry is how long Connect keeps trying while a guest's sshd starts.
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address found at
// create, as the template's ssh {} block says. lab must reach that
// address directly (an existing switch on the lab's network, or a
// lab-made one with an uplink); there is no jump through the host yet.
func (p *Provider) Connect(in providers.Instance) (guest.Transport, error) {
	addr := in.Attrs["addr"]
	if addr == "" {
		return nil, fmt.Errorf("%s: no guest address recorded", in.Address)
	}
	c := ssh.Config{User: in.Attrs["ssh_user"], Host: addr, PrivateKeyFile: in.Attrs["ssh_private_key_file"],
		KnownHostKey: in.Attrs["ssh_host_key"], Retry: SSHRetry}
	if s := in.Attrs["ssh_port"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: bad ssh_port %q", in.Address, s)
		}
		c.Port = n
	}
	ctx, cancel := context.WithTimeout(context.Background(), SSHRetry+30*time.Second)
	defer cancel()
	return p.dial(ctx, in.Address, c)
}

// List finds a lab's VMs, ZFS clones and interfaces by name prefix
// (description for interfaces), for `lab destroy -orphans`.
func (p *Provider) List(ctx context.Context, labID string) ([]providers.Instance, error) {
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
