package ssh

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/lab-bench/lab/machine"
)

// DefaultPrivateKeyFile is the key a spec's SSH login uses when it names none.
const DefaultPrivateKeyFile = "~/.ssh/id_ed25519"

var userRE = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}$`)

// LoginProblem is one invalid Login field, named by its spec attribute.
type LoginProblem struct {
	Attr, Summary, Detail string
}

// CheckLogin fills l's defaults (port 22, user root, ~/.ssh/id_ed25519)
// and reports every field that cannot be used, so providers turn them into
// diagnostics on the attribute's range.
func CheckLogin(l *machine.Login) []LoginProblem {
	var out []LoginProblem
	bad := func(attr, summary, format string, a ...any) {
		out = append(out, LoginProblem{attr, summary, fmt.Sprintf(format, a...)})
	}
	if l.Port == 0 {
		l.Port = DefaultPort
	} else if l.Port < 1 || l.Port > 65535 {
		bad("port", "Invalid port", "port must be 1..65535, got %d.", l.Port)
	}
	if l.User == "" {
		l.User = DefaultUser
	} else if !userRE.MatchString(l.User) {
		bad("user", "Invalid user", "%q is not a valid user name.", l.User)
	}
	if l.PrivateKeyFile == "" {
		l.PrivateKeyFile = DefaultPrivateKeyFile
	} else if strings.ContainsAny(l.PrivateKeyFile, "\x00\n\r") {
		bad("private_key_file", "Invalid private key file", "private_key_file must be a path without control characters.")
	}
	if l.HostKey != "" {
		if _, err := ParseHostKey(l.HostKey); err != nil {
			bad("host_key", "Invalid host key", "host_key must be one line as in authorized_keys or known_hosts without the host name (\"ssh-ed25519 AAAA…\"): %v.", err)
		}
	}
	return out
}

// ConfigFor is the dial configuration for logging in to host with l. The
// login's HostKey, when set, is the key the host must present.
func ConfigFor(host string, l machine.Login) Config {
	return Config{User: l.User, Host: host, Port: l.Port, PrivateKeyFile: l.PrivateKeyFile, KnownHostKey: l.HostKey,
		Agent: l.Agent, KnownHostsFile: l.KnownHostsFile, AcceptNewHost: l.KnownHostsFile != ""}
}

// DialConfig is ConfigFor with l's ssh_config file read and its ProxyJump
// applied: what a created guest is dialled with. Hops inherit l's agent,
// known_hosts file and key file; they must be in the known_hosts file
// when one is given (no accept-new for a jump host).
func DialConfig(host string, l machine.Login) (Config, error) {
	c := ConfigFor(host, l)
	var sc *SSHConfig
	if l.SSHConfig != "" {
		var err error
		if sc, err = ReadSSHConfig(l.SSHConfig); err != nil {
			return c, err
		}
	}
	if l.ProxyJump != "" {
		var err error
		if c, err = c.WithProxyJump(l.ProxyJump, sc); err != nil {
			return c, err
		}
	}
	c, err := c.Resolve(sc)
	if err != nil {
		return c, err
	}
	if c.PrivateKeyFile == "" && l.SSHConfig != "" && !c.Agent {
		c.PrivateKeyFile = DefaultPrivateKeyFile
	}
	return c, nil
}
