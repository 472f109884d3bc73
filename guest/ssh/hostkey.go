package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"net"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// UnknownHostError is a host missing from the known_hosts file lab was
// told to check against. It is never retried, and lab does not add it.
type UnknownHostError struct {
	Guest, Addr, File, Seen string
}

func (e *UnknownHostError) Error() string {
	host, port, _ := net.SplitHostPort(e.Addr)
	return fmt.Sprintf("%s (%s): host key %s is not in %s: check it and add it (ssh-keyscan -p %s %s >> %s), or pin host_key",
		e.Guest, e.Addr, fingerprint(e.Seen), e.File, port, host, e.File)
}

// hostKeyCheck verifies the key a host presents: against the pinned key
// when there is one, else against a known_hosts file when one is given
// (x/crypto/ssh/knownhosts, OpenSSH's format), else against the
// workspace's pin file for a host dialled with Pin (trusting and pinning
// a host it does not list), else it accepts the first key seen. seen and
// failed report what happened, for Dial's errors; pinNew asks dialOnce to
// pin the key once the login succeeded.
type hostKeyCheck struct {
	guest, addr string
	known       xssh.PublicKey
	knownFix    string
	file        string
	db          xssh.HostKeyCallback
	acceptNew   bool
	pinFile     string
	pinned      []xssh.PublicKey
	pinNew      bool
	seen        xssh.PublicKey
	failed      error
}

func newHostKeyCheck(guestName, addr string, c Config) (*hostKeyCheck, error) {
	h := &hostKeyCheck{guest: guestName, addr: addr}
	switch {
	case c.KnownHostKey != "":
		k, err := ParseHostKey(c.KnownHostKey)
		if err != nil {
			return nil, err
		}
		h.known, h.knownFix = k, c.HostKeyFix
	case c.KnownHostsFile != "":
		path, err := ExpandHome(c.KnownHostsFile)
		if err != nil {
			return nil, err
		}
		db, err := knownhosts.New(path)
		if err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
		h.file, h.db, h.acceptNew = path, db, c.AcceptNewHost
	case c.Pin && c.PinFile != "":
		keys, err := pinnedKeys(c.PinFile, addr)
		if err != nil {
			return nil, err
		}
		h.pinFile, h.pinned = c.PinFile, keys
	}
	return h, nil
}

// algorithms are the host key algorithms to ask for: those of the key or
// keys the host must present (a host with ed25519 and RSA keys would
// otherwise be free to show the other one and look "changed"); nil when
// any will do.
func (h *hostKeyCheck) algorithms() []string {
	var out []string
	if h.known != nil {
		return hostKeyAlgorithms(h.known)
	}
	for _, k := range h.pinned {
		out = append(out, hostKeyAlgorithms(k)...)
	}
	return out
}

func (h *hostKeyCheck) callback(hostname string, remote net.Addr, key xssh.PublicKey) error {
	h.seen = key
	switch {
	case h.known != nil:
		if !bytes.Equal(key.Marshal(), h.known.Marshal()) {
			h.failed = &HostKeyChangedError{Guest: h.guest, Addr: h.addr, Known: FormatKey(h.known), Seen: FormatKey(key), Fix: h.knownFix}
		}
	case h.pinFile != "":
		h.checkPinned(key)
	case h.db != nil:
		err := h.db(hostname, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case errors.As(err, &ke) && len(ke.Want) > 0:
			h.failed = &HostKeyChangedError{Guest: h.guest, Addr: h.addr, Known: FormatKey(ke.Want[0].Key), Seen: FormatKey(key),
				Fix: fmt.Sprintf("If the host key was changed on purpose, check the new one and replace the line in %s (`%s` removes it)", h.file, ForgetCommand(h.file, h.addr))}
		case errors.As(err, &ke) && h.acceptNew:
		case errors.As(err, &ke):
			h.failed = &UnknownHostError{Guest: h.guest, Addr: h.addr, File: h.file, Seen: FormatKey(key)}
		case err != nil:
			h.failed = err
		}
	}
	return h.failed
}

// checkPinned accepts key if the pin file lists it for the host, or
// lists nothing for the host (it is then pinned after the login).
func (h *hostKeyCheck) checkPinned(key xssh.PublicKey) {
	if len(h.pinned) == 0 {
		h.pinNew = true
		return
	}
	for _, k := range h.pinned {
		if bytes.Equal(k.Marshal(), key.Marshal()) {
			return
		}
	}
	h.failed = &HostKeyChangedError{Guest: h.guest, Addr: h.addr, Known: FormatKey(h.pinned[0]), Seen: FormatKey(key),
		Fix: pinFix(h.pinFile, h.addr)}
}
