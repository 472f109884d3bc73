package ssh

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// Defaults used when a Config leaves a field zero.
const (
	DefaultPort        = 22
	DefaultUser        = "root"
	DefaultDialTimeout = 10 * time.Second
	// Backoff bounds between connection attempts while a guest boots.
	firstBackoff = 200 * time.Millisecond
	maxBackoff   = 5 * time.Second
	// refusedRetry is the interval while the connection is refused.
	refusedRetry = 100 * time.Millisecond
	// connectPollWindow is how long one of ConnectPoll's connects waits
	// for the guest's answer: twice the kernel's first SYN resend, and far
	// beyond how long a booting guest that has its address takes to
	// answer a SYN, however loaded its host.
	connectPollWindow = 2 * time.Second
)

// Config tells Dial how to reach and authenticate one guest.
type Config struct {
	User string // default "root"
	Host string // address or name
	Port int    // default 22
	// PrivateKeyFile is an OpenSSH private key (unencrypted); "~/" is the
	// user's home directory. Ignored when Signer is set.
	PrivateKeyFile string
	// Signer authenticates instead of PrivateKeyFile (tests, agents).
	Signer xssh.Signer
	// KnownHostKey is the host key the guest must present, one
	// authorized_keys-format line ("ssh-ed25519 AAAA…"). Empty: trust the
	// key seen on first contact (the caller records Transport.HostKey).
	KnownHostKey string
	// HostKeyFix is what the error for a key other than KnownHostKey
	// tells to do ("" : the key recorded for a guest lab created).
	HostKeyFix string
	// DialTimeout bounds one TCP connect plus handshake (default 10 s).
	DialTimeout time.Duration
	// ConnectPoll, when set, is how a booting guest is reached over TCP
	// (not through Jump): a new connect starts every ConnectPoll while
	// none has connected, without waiting for the earlier ones, each given
	// up after connectPollWindow; the first that connects carries the SSH
	// handshake and the others are closed. A guest that has its DHCP lease
	// but has not yet set the address drops the SYNs (the kernel would
	// resend one only after 1 s), and one whose sshd does not listen yet
	// refuses them: either way the next attempt is at most ConnectPoll
	// away. Zero: one connect at a time, retried as Retry says.
	ConnectPoll time.Duration
	// Retry is how long to keep trying while the guest boots (connection
	// refused, timeouts, resets), with exponential backoff from 200 ms to
	// 5 s. Zero: one attempt. A changed host key or failed authentication
	// is never retried.
	Retry time.Duration

	// Agent offers the keys of the ssh-agent at AgentSocket (default
	// $SSH_AUTH_SOCK) before PrivateKeyFile's; with an agent a missing
	// key file is no error.
	Agent       bool
	AgentSocket string
	// KnownHostsFile, when KnownHostKey is empty, is an OpenSSH
	// known_hosts file ("~/.ssh/known_hosts") the host's key must be in:
	// a different key is a *HostKeyChangedError, a host not in it an
	// *UnknownHostError. Empty: trust on first use.
	KnownHostsFile string
	// AcceptNewHost, with KnownHostsFile, trusts a host the file does
	// not list (OpenSSH's StrictHostKeyChecking=accept-new, without
	// writing the file): a listed host must still present its key.
	AcceptNewHost bool
	// Pin, when neither KnownHostKey nor KnownHostsFile is set, checks
	// the host's key against the workspace's pin file (PinFile, or the
	// one WithPinFile put in Dial's context) and pins it there on first
	// contact: for machines that outlive a lab's apply (a hosts machine;
	// jump hosts are always pinned).
	Pin     bool
	PinFile string
	// Jump is the host to reach Host through (OpenSSH's ProxyJump): lab
	// logs in to it and opens a TCP channel to Host:Port from there.
	Jump *Config
}

// Addr is "host:port".
func (c Config) Addr() string {
	port := c.Port
	if port == 0 {
		port = DefaultPort
	}
	return net.JoinHostPort(c.Host, strconv.Itoa(port))
}

func (c Config) user() string {
	if c.User == "" {
		return DefaultUser
	}
	return c.User
}

func (c Config) dialTimeout() time.Duration {
	if c.DialTimeout <= 0 {
		return DefaultDialTimeout
	}
	return c.DialTimeout
}

// signer returns the configured signer or loads PrivateKeyFile.
func (c Config) signer() (xssh.Signer, error) {
	if c.Signer != nil {
		return c.Signer, nil
	}
	if c.PrivateKeyFile == "" {
		return nil, fmt.Errorf("no private key: set private_key_file")
	}
	path, err := ExpandHome(c.PrivateKeyFile)
	if err != nil {
		return nil, err
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	s, err := xssh.ParsePrivateKey(pem)
	if err != nil {
		var missing *xssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("private key %s is encrypted: lab needs an unencrypted key (or an agent-backed Signer)", path)
		}
		return nil, fmt.Errorf("private key %s: %w", path, err)
	}
	return s, nil
}

// ExpandHome replaces a leading "~/" with the user's home directory.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expand %s: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// ParseHostKey parses one authorized_keys-format line.
func ParseHostKey(line string) (xssh.PublicKey, error) {
	k, _, _, _, err := xssh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return nil, fmt.Errorf("host key %q: %w", truncate(line, 40), err)
	}
	return k, nil
}

// FormatKey renders a public key as one authorized_keys-format line
// without a trailing newline.
func FormatKey(k xssh.PublicKey) string {
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k)))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
