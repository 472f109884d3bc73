package ssh_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// TestPinFile follows a borrowed machine's host key through the
// workspace's pin file: pinned on first contact (a known_hosts line, mode
// 0600), accepted again, refused once the machine presents another key at
// the same address (the error printing the ssh-keygen command that
// accepts it), and accepted after running that command as printed.
func TestPinFile(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("needs ssh-keygen (Debian package openssh-client)")
	}
	client := sshtest.NewKey(t)
	first := sshtest.Start(t, echo, sshtest.Options{ClientKey: client})
	addr := first.Addr()
	pins := filepath.Join(t.TempDir(), "ws dir", ".lab", "known_hosts") // a space, as a user's path may have
	ctx := labssh.WithPinFile(context.Background(), pins)
	cfg := config(first, "")
	cfg.Pin = true

	dialOK := func(t *testing.T) {
		t.Helper()
		tr, err := labssh.Dial(ctx, "server.bm", cfg)
		if err != nil {
			t.Fatal(err)
		}
		tr.Close()
	}
	pinned := func(t *testing.T) string {
		t.Helper()
		b, err := os.ReadFile(pins)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// A guest lab created (no Pin) leaves the file alone.
	created := config(first, "")
	if tr, err := labssh.Dial(ctx, "pair.t.server", created); err != nil {
		t.Fatal(err)
	} else {
		tr.Close()
	}
	if _, err := os.Stat(pins); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a created guest's key was pinned: %v", err)
	}

	dialOK(t)
	fi, err := os.Stat(pins)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("pin file mode %v, want 0600", fi.Mode().Perm())
	}
	hk, err := labssh.ParseHostKey(first.HostKey())
	if err != nil {
		t.Fatal(err)
	}
	if want := knownhosts.Line([]string{knownhosts.Normalize(addr)}, hk) + "\n"; pinned(t) != want {
		t.Fatalf("pin file:\n%s\nwant:\n%s", pinned(t), want)
	}
	dialOK(t)
	if n := strings.Count(pinned(t), "\n"); n != 1 {
		t.Errorf("%d lines after a second login, want 1:\n%s", n, pinned(t))
	}

	// The machine is reinstalled: same address, another host key.
	first.Close()
	second := sshtest.Start(t, echo, sshtest.Options{Addr: addr, ClientKey: client})
	cfg.Retry = 5 * time.Second // a changed key must not be retried
	start := time.Now()
	_, err = labssh.Dial(ctx, "server.bm", cfg)
	var hkErr *labssh.HostKeyChangedError
	if !errors.As(err, &hkErr) {
		t.Fatalf("a rotated key: %v, want a HostKeyChangedError", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("refusal took %v: retried?", time.Since(start))
	}
	forget := labssh.ForgetCommand(pins, addr)
	for _, want := range []string{fp(t, first.HostKey()), fp(t, second.HostKey()), "`" + forget + "`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(pinned(t), strings.Fields(second.HostKey())[1]) {
		t.Fatal("the refused key was pinned")
	}

	// Run the printed command as printed, by a shell.
	printed := strings.Split(err.Error(), "`")[1]
	if out, err := exec.Command("sh", "-c", printed).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", printed, err, out)
	}
	dialOK(t)
	if p := pinned(t); !strings.Contains(p, strings.Fields(second.HostKey())[1]) || strings.Contains(p, strings.Fields(first.HostKey())[1]) {
		t.Errorf("after the forget command the pin file holds:\n%s", p)
	}
}
