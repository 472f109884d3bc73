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
// (x/crypto/ssh/knownhosts, OpenSSH's format), else it accepts the first
// key seen. seen and failed report what happened, for Dial's errors.
type hostKeyCheck struct {
	guest, addr string
	known       xssh.PublicKey
	file        string
	db          xssh.HostKeyCallback
	acceptNew   bool
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
		h.known = k
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
	}
	return h, nil
}

func (h *hostKeyCheck) callback(hostname string, remote net.Addr, key xssh.PublicKey) error {
	h.seen = key
	switch {
	case h.known != nil:
		if !bytes.Equal(key.Marshal(), h.known.Marshal()) {
			h.failed = &HostKeyChangedError{Guest: h.guest, Addr: h.addr, Known: FormatKey(h.known), Seen: FormatKey(key)}
		}
	case h.db != nil:
		err := h.db(hostname, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case errors.As(err, &ke) && len(ke.Want) > 0:
			h.failed = &HostKeyChangedError{Guest: h.guest, Addr: h.addr, Known: FormatKey(ke.Want[0].Key), Seen: FormatKey(key)}
		case errors.As(err, &ke) && h.acceptNew:
		case errors.As(err, &ke):
			h.failed = &UnknownHostError{Guest: h.guest, Addr: h.addr, File: h.file, Seen: FormatKey(key)}
		case err != nil:
			h.failed = err
		}
	}
	return h.failed
}
