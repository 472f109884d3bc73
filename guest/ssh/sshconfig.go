package ssh

import (
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/machine"
)

// SSHConfig is the part of an OpenSSH client configuration file
// (~/.ssh/config, ssh_config(5)) lab reads: Host blocks and, in them,
// HostName, User, Port, IdentityFile and ProxyJump. Other keywords are
// ignored; Match blocks are skipped (lab does not evaluate them).
type SSHConfig struct {
	blocks []hostBlock
}

type hostBlock struct {
	patterns []string
	opts     [][2]string // keyword (lower case), value; in file order
}

// HostConfig is what an SSHConfig says about one host alias.
type HostConfig struct {
	HostName, User, IdentityFile, ProxyJump string
	Port                                    int
}

// ParseSSHConfig reads ssh_config(5) text: "Keyword value" or
// "Keyword=value" lines, keywords case-insensitive, "#" comments. Lines
// before the first Host apply to every host (as "Host *").
func ParseSSHConfig(text string) (*SSHConfig, error) {
	sc := &SSHConfig{blocks: []hostBlock{{patterns: []string{"*"}}}}
	skipping := false
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := cutKeyword(line)
		if !ok {
			return nil, fmt.Errorf("ssh config line %d: %q is not \"Keyword value\"", n+1, line)
		}
		switch key {
		case "host":
			sc.blocks = append(sc.blocks, hostBlock{patterns: strings.Fields(val)})
			skipping = false
			continue
		case "match":
			skipping = true
			continue
		}
		if skipping {
			continue
		}
		b := &sc.blocks[len(sc.blocks)-1]
		b.opts = append(b.opts, [2]string{key, unquote(val)})
	}
	return sc, nil
}

// ReadSSHConfig parses the file at p ("~/" expanded); a missing file is
// an empty configuration.
func ReadSSHConfig(p string) (*SSHConfig, error) {
	p, err := ExpandHome(p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return &SSHConfig{}, nil
	}
	if err != nil {
		return nil, err
	}
	sc, err := ParseSSHConfig(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return sc, nil
}

func cutKeyword(line string) (key, val string, ok bool) {
	i := strings.IndexAny(line, " \t=")
	if i <= 0 {
		return "", "", false
	}
	key = strings.ToLower(line[:i])
	val = strings.TrimLeft(line[i:], " \t")
	val = strings.TrimPrefix(val, "=")
	return key, strings.TrimSpace(val), true
}

func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// matches is ssh_config(5)'s PATTERNS: "*" and "?" wildcards, a pattern
// starting with "!" excludes; a host matches when one pattern does and no
// negated one does.
func (b hostBlock) matches(host string) bool {
	ok := false
	for _, p := range b.patterns {
		neg := strings.HasPrefix(p, "!")
		m, _ := path.Match(strings.ToLower(strings.TrimPrefix(p, "!")), strings.ToLower(host))
		if m && neg {
			return false
		}
		ok = ok || m && !neg
	}
	return ok
}

// Lookup is the configuration for alias: for each keyword the first value
// found in the blocks that match, in file order (ssh_config(5): "the
// first obtained value will be used").
func (sc *SSHConfig) Lookup(alias string) HostConfig {
	var h HostConfig
	set := map[string]bool{}
	for _, b := range sc.blocks {
		if !b.matches(alias) {
			continue
		}
		for _, kv := range b.opts {
			if set[kv[0]] {
				continue
			}
			set[kv[0]] = true
			switch kv[0] {
			case "hostname":
				h.HostName = strings.ReplaceAll(kv[1], "%h", alias)
			case "user":
				h.User = kv[1]
			case "port":
				h.Port, _ = strconv.Atoi(kv[1])
			case "identityfile":
				h.IdentityFile = kv[1]
			case "proxyjump":
				h.ProxyJump = kv[1]
			default:
				delete(set, kv[0])
			}
		}
	}
	return h
}

// maxJumps bounds a ProxyJump chain (and catches loops between aliases).
const maxJumps = 8

// Resolve applies sc's entry for c.Host: HostName replaces Host; User,
// Port and IdentityFile fill what c leaves empty (what lab's spec says
// wins); ProxyJump ("[user@]host[:port][,…]", each hop itself an alias)
// becomes c.Jump, the last hop nearest to the host, unless c already has
// one. Hops inherit c's agent and host key file settings, not its pinned
// key.
func (c Config) Resolve(sc *SSHConfig) (Config, error) {
	return c.resolve(sc, 0)
}

func (c Config) resolve(sc *SSHConfig, depth int) (Config, error) {
	if depth > maxJumps {
		return c, fmt.Errorf("ssh config: ProxyJump chain for %s longer than %d hops (a loop?)", c.Host, maxJumps)
	}
	if sc == nil {
		return c, nil
	}
	h := sc.Lookup(c.Host)
	if h.HostName != "" {
		c.Host = h.HostName
	}
	if c.User == "" {
		c.User = h.User
	}
	if c.Port == 0 {
		c.Port = h.Port
	}
	if c.PrivateKeyFile == "" {
		c.PrivateKeyFile = h.IdentityFile
	}
	if c.Jump != nil || h.ProxyJump == "" || strings.EqualFold(h.ProxyJump, "none") {
		return c, nil
	}
	return c.withProxyJump(h.ProxyJump, sc, depth)
}

// WithProxyJump sets c.Jump from an OpenSSH ProxyJump value,
// "[user@]host[:port][,…]": the hops in order, the last nearest to c's
// host. Each hop is itself resolved through sc (nil: none) and inherits
// c's agent, known_hosts file, key file and timeouts, not its pinned key.
func (c Config) WithProxyJump(spec string, sc *SSHConfig) (Config, error) {
	return c.withProxyJump(spec, sc, 0)
}

func (c Config) withProxyJump(spec string, sc *SSHConfig, depth int) (Config, error) {
	var jump *Config
	for _, hop := range strings.Split(spec, ",") {
		h, err := machine.ParseJumpHop(spec, hop)
		if err != nil {
			return c, err
		}
		j := Config{User: h.User, Host: h.Host, Port: h.Port,
			Agent: c.Agent, AgentSocket: c.AgentSocket, KnownHostsFile: c.KnownHostsFile, DialTimeout: c.DialTimeout, Retry: c.Retry}
		j.Jump = jump
		r, err := j.resolve(sc, depth+1)
		if err != nil {
			return c, err
		}
		if r.PrivateKeyFile == "" {
			r.PrivateKeyFile = c.PrivateKeyFile
		}
		jump = &r
	}
	c.Jump = jump
	return c, nil
}
