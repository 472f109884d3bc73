package machine

import (
	"fmt"
	"strconv"
	"strings"
)

// Login is how lab logs in to a machine over SSH — the one shape of a
// template's ssh {} block, a bhyve host or a hosts machine in a provider
// block, and a created guest's endpoint in state. guest/ssh dials it.
type Login struct {
	Port           int    `json:"port,omitempty"`
	User           string `json:"user,omitempty"`
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	HostKey        string `json:"host_key,omitempty"` // pinned key, one authorized_keys line
	// Agent offers ssh-agent's keys ($SSH_AUTH_SOCK) before the key file.
	Agent bool `json:"agent,omitempty"`
	// KnownHostsFile is an OpenSSH known_hosts file: jump hosts must be
	// in it, and a machine in it must present the key it lists. A created
	// guest not in it (a fresh clone with new host keys) is trusted on
	// first contact and its key recorded, as OpenSSH's
	// StrictHostKeyChecking=accept-new.
	KnownHostsFile string `json:"known_hosts_file,omitempty"`
	// SSHConfig is an OpenSSH client configuration file (~/.ssh/config):
	// its Host entries matching the machine (and each jump hop) fill
	// HostName, User, Port, IdentityFile and ProxyJump left unset here.
	SSHConfig string `json:"ssh_config,omitempty"`
	// ProxyJump reaches the machine through jump hosts, as OpenSSH's
	// ProxyJump: "[user@]host[:port][,…]" (see ParseJumpHop).
	ProxyJump string `json:"proxy_jump,omitempty"`
}

// JumpHop is one hop of a ProxyJump value: [user@]host[:port] (Port 0:
// not given).
type JumpHop struct {
	User, Host string
	Port       int
}

// ParseJumpHop reads one comma-separated hop of the ProxyJump value spec
// (named in the error): a port must be 1..65535, a host non-empty without
// blanks, NUL or "/".
func ParseJumpHop(spec, hop string) (JumpHop, error) {
	var j JumpHop
	hop = strings.TrimSpace(hop)
	if u, rest, ok := strings.Cut(hop, "@"); ok {
		j.User, hop = u, rest
	}
	if host, port, ok := strings.Cut(hop, ":"); ok && !strings.Contains(port, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return j, fmt.Errorf("ProxyJump %q: bad port %q", spec, port)
		}
		hop, j.Port = host, n
	}
	if hop == "" || strings.ContainsAny(hop, " \t\x00/") {
		return j, fmt.Errorf("ProxyJump %q: bad host %q", spec, hop)
	}
	j.Host = hop
	return j, nil
}

// CheckProxyJump refuses a ProxyJump value one of whose hops ParseJumpHop
// refuses.
func CheckProxyJump(spec string) error {
	for _, hop := range strings.Split(spec, ",") {
		if _, err := ParseJumpHop(spec, hop); err != nil {
			return err
		}
	}
	return nil
}
