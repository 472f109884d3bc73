package ssh

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/atomicfile"
)

// A pin file is a workspace's own known_hosts file (OpenSSH's format, one
// "host key" line per machine, "[host]:port" off port 22): the host keys of
// the machines lab borrows (Config.Pin) and of every jump host, trusted on
// first contact and refused from then on when they change. Unlike a
// created guest's key, which lives and dies with the guest in the state, a
// pin outlives teardown: a borrowed machine is the same machine at the next
// apply. lab only ever adds lines; a rotation is accepted by removing the
// host's line (ForgetCommand prints the ssh-keygen -R command that does).

// pinFileKey is the context key of the pin file's path.
type pinFileKey struct{}

// WithPinFile returns ctx telling Dial to pin, in the known_hosts file at
// path, the host keys of jump hosts and of machines dialled with
// Config.Pin (when no host_key or known_hosts_file decides instead).
func WithPinFile(ctx context.Context, path string) context.Context {
	return context.WithValue(ctx, pinFileKey{}, path)
}

// PinFileFrom is the pin file WithPinFile put in ctx, "" without one.
func PinFileFrom(ctx context.Context) string {
	s, _ := ctx.Value(pinFileKey{}).(string)
	return s
}

// ForgetCommand is the command that removes addr's ("host:port") pinned
// key from the pin file, so that the key it presents next is trusted: the
// documented way to accept a rotated host key. It is safe as printed:
// every word shell-quoted.
func ForgetCommand(file, addr string) string {
	return guest.ShellJoin([]string{"ssh-keygen", "-f", file, "-R", knownhosts.Normalize(addr)})
}

// AddPin pins hostKey (one authorized_keys line) as addr's ("host:port")
// in the pin file at file, as a first contact would; a key already pinned
// for addr wins (another one is a *HostKeyChangedError).
func AddPin(file, addr, hostKey string) error {
	k, err := ParseHostKey(hostKey)
	if err != nil {
		return err
	}
	return addPin(file, addr, addr, k)
}

// pinMu serialises the read-modify-write of pin files within the process
// (the server and client are dialled at once and may share a jump host);
// the state lock keeps other lab processes of the workspace out.
var pinMu sync.Mutex

// pinnedKeys returns the keys the known_hosts file at path lists for addr
// (none when the file does not exist).
func pinnedKeys(path, addr string) ([]xssh.PublicKey, error) {
	db, err := knownhosts.New(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("host key pins: %w", err)
	}
	// A key no host has: the check fails and lists what addr is known by.
	probe, err := xssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		return nil, err
	}
	var ke *knownhosts.KeyError
	if err := db(addr, dummyAddr{addr}, probe); !errors.As(err, &ke) {
		return nil, fmt.Errorf("host key pins %s: %v", path, err)
	}
	out := make([]xssh.PublicKey, 0, len(ke.Want))
	for _, k := range ke.Want {
		out = append(out, k.Key)
	}
	return out, nil
}

// dummyAddr is the remote address given to a known_hosts lookup by name.
type dummyAddr struct{ s string }

func (a dummyAddr) Network() string { return "tcp" }
func (a dummyAddr) String() string  { return a.s }

// addPin records key as addr's in the pin file at path, creating the file
// (0600, its directory 0700) if need be and replacing it atomically. A key
// already there is left as it is; another key for addr pinned meanwhile is
// a *HostKeyChangedError.
func addPin(path, guestName, addr string, key xssh.PublicKey) error {
	pinMu.Lock()
	defer pinMu.Unlock()
	known, err := pinnedKeys(path, addr)
	if err != nil {
		return err
	}
	for _, k := range known {
		if bytes.Equal(k.Marshal(), key.Marshal()) {
			return nil
		}
	}
	if len(known) > 0 {
		return &HostKeyChangedError{Guest: guestName, Addr: addr, Known: FormatKey(known[0]), Seen: FormatKey(key),
			Fix: pinFix(path, addr)}
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("host key pins: %w", err)
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("host key pins: %w", err)
	}
	if err := atomicfile.Write(path, append(old, line...), 0o600); err != nil {
		return fmt.Errorf("host key pins: %w", err)
	}
	return nil
}

// pinFix is what a changed key's error tells to do when the key was
// pinned in the workspace's pin file.
func pinFix(path, addr string) string {
	return fmt.Sprintf("If the host key was changed on purpose, accept the new one by removing the pinned one: `%s`, then run lab again", ForgetCommand(path, addr))
}
