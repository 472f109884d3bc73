package ssh_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// TestAgent: the agent's key logs in; a missing key file does not matter
// then; without the agent it does.
func TestAgent(t *testing.T) {
	key := sshtest.NewKey(t)
	srv := sshtest.Start(t, echo, sshtest.Options{ClientKey: key})
	sock := sshtest.ServeAgent(t, key)
	missing := filepath.Join(t.TempDir(), "id_ed25519")
	c := labssh.Config{Host: srv.Host(), Port: srv.Port(), KnownHostKey: srv.HostKey(), Agent: true, AgentSocket: sock, PrivateKeyFile: missing}
	tr, err := labssh.Dial(context.Background(), "pair.a.server", c)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()

	other := sshtest.ServeAgent(t, sshtest.NewKey(t))
	c.AgentSocket = other
	var ae *labssh.AuthError
	if _, err := labssh.Dial(context.Background(), "pair.a.server", c); !errors.As(err, &ae) {
		t.Errorf("agent with the wrong key: %v", err)
	}
	c.Agent = false
	if _, err := labssh.Dial(context.Background(), "pair.a.server", c); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("no agent, no key file: %v", err)
	}
	c.Agent, c.AgentSocket = true, filepath.Join(t.TempDir(), "none.sock")
	if _, err := labssh.Dial(context.Background(), "pair.a.server", c); err == nil || !strings.Contains(err.Error(), "ssh-agent at") {
		t.Errorf("agent socket missing: %v", err)
	}
}

// TestKnownHosts: the host's key is checked against an OpenSSH
// known_hosts file (lines as knownhosts.Line writes them, "[host]:port
// key" for a port other than 22).
func TestKnownHosts(t *testing.T) {
	srv := sshtest.NewServer(t, echo)
	hostKey, err := labssh.ParseHostKey(srv.HostKey())
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := xssh.NewSignerFromKey(sshtest.NewKey(t))
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort(srv.Host(), strconv.Itoa(srv.Port()))
	write := func(lines ...string) string {
		p := filepath.Join(t.TempDir(), "known_hosts")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dial := func(file string) error {
		tr, err := labssh.Dial(context.Background(), "pair.k.server", labssh.Config{Host: srv.Host(), Port: srv.Port(),
			Signer: srv.ClientSigner(), KnownHostsFile: file})
		if err == nil {
			tr.Close()
		}
		return err
	}
	if err := dial(write("# lab test", knownhosts.Line([]string{addr}, hostKey))); err != nil {
		t.Errorf("known host: %v", err)
	}
	var changed *labssh.HostKeyChangedError
	if err := dial(write(knownhosts.Line([]string{addr}, otherKey.PublicKey()))); !errors.As(err, &changed) {
		t.Errorf("another key on file: %v", err)
	}
	var unknown *labssh.UnknownHostError
	err = dial(write(knownhosts.Line([]string{"[192.0.2.9]:22"}, hostKey)))
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "ssh-keyscan -p") {
		t.Errorf("host not on file: %v", err)
	}
}

// TestSSHConfig reads Host aliases as ssh(1) does: first value wins,
// wildcards and negation, HostName's %h, ProxyJump chains whose hops are
// aliases too; what lab's own config sets wins over the file.
func TestSSHConfig(t *testing.T) {
	sc, err := labssh.ParseSSHConfig(`
# lab's hypervisor and its guests
Host bhyve1
    HostName 192.0.2.5
    User admin
    Port 2222
    IdentityFile ~/.ssh/lab_ed25519

Host gw
    HostName gw.example.net
    User jump

Host guest-* !guest-direct
    ProxyJump gw,bhyve1
    User root

Host guest-direct
    HostName=198.18.0.9

Host *.lab
    HostName %h.example.net
    ProxyJump none

Match host foo
    User ignored

Host *
    User fallback
    Port 22
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		alias string
		want  labssh.HostConfig
	}{
		{"bhyve1", labssh.HostConfig{HostName: "192.0.2.5", User: "admin", Port: 2222, IdentityFile: "~/.ssh/lab_ed25519"}},
		{"guest-s", labssh.HostConfig{User: "root", Port: 22, ProxyJump: "gw,bhyve1"}},
		{"guest-direct", labssh.HostConfig{HostName: "198.18.0.9", User: "fallback", Port: 22}},
		{"x.lab", labssh.HostConfig{HostName: "x.lab.example.net", User: "fallback", Port: 22, ProxyJump: "none"}},
	} {
		if got := sc.Lookup(c.alias); got != c.want {
			t.Errorf("Lookup(%s) = %+v, want %+v", c.alias, got, c.want)
		}
	}
	r, err := labssh.Config{Host: "guest-s", Port: 22, KnownHostsFile: "~/.ssh/known_hosts"}.Resolve(sc)
	if err != nil {
		t.Fatal(err)
	}
	if r.Host != "guest-s" || r.User != "root" || r.Jump == nil {
		t.Fatalf("Resolve(guest-s) = %+v", r)
	}
	// ProxyJump gw,bhyve1: gw first, then bhyve1, then the guest.
	j1, j0 := r.Jump, r.Jump.Jump
	if j1.Host != "192.0.2.5" || j1.User != "admin" || j1.Port != 2222 || j1.PrivateKeyFile != "~/.ssh/lab_ed25519" || j1.KnownHostsFile != "~/.ssh/known_hosts" {
		t.Errorf("second hop %+v", j1)
	}
	if j0 == nil || j0.Host != "gw.example.net" || j0.User != "jump" || j0.Jump != nil {
		t.Errorf("first hop %+v", j0)
	}
	spec, _ := labssh.Config{Host: "bhyve1", User: "root"}.Resolve(sc)
	if spec.User != "root" || spec.Port != 2222 {
		t.Errorf("lab's user must win: %+v", spec)
	}
	loop, _ := labssh.ParseSSHConfig("Host a\n ProxyJump b\nHost b\n ProxyJump a\n")
	if _, err := (labssh.Config{Host: "a"}).Resolve(loop); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("ProxyJump loop: %v", err)
	}
	if _, err := labssh.ParseSSHConfig("Host\n"); err == nil {
		t.Error("a keyword without value accepted")
	}
}
