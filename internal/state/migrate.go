package state

import (
	"strconv"
	"strings"

	"github.com/lab-bench/lab/machine"
)

// v1Endpoint moves what format 1 kept in a machine's Attrs — how the
// engine reached it — into the typed Endpoint of format 2, so a state
// written by an older lab can still be connected to and destroyed.
func v1Endpoint(r *Resource) {
	if r.Kind != "machine" || r.Endpoint != nil || r.Attrs == nil {
		return
	}
	a := r.Attrs
	ep := &machine.Endpoint{Addr: a["addr"], Iface: a["iface"], Iface2: a["iface2"], TemplateID: a["template_identity"]}
	for _, f := range strings.Split(a["cpus"], ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			ep.CPUs = append(ep.CPUs, n)
		}
	}
	host := a["ssh_address"]
	if host == "" && a["ssh_user"] != "" {
		host = a["addr"]
	}
	if host != "" {
		port, _ := strconv.Atoi(a["ssh_port"])
		ep.SSHHost = host
		ep.SSH = &machine.Login{User: a["ssh_user"], Port: port, PrivateKeyFile: a["ssh_private_key_file"], HostKey: a["ssh_host_key"]}
	}
	r.Endpoint = ep
}
