package libvirt

import (
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// TestConfigureRemote: the SSH attributes apply to qemu+ssh:// URIs, and
// every refusal points at its line.
func TestConfigureRemote(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // summary; "" = valid
		line      int
	}{
		{"remote with agent and known_hosts", "uri = \"qemu+ssh://admin@kvm1:2222/system\"\nagent = true\nknown_hosts_file = \"~/.ssh/known_hosts\"\njump_via_host = true\n", "", 0},
		{"ssh_config alias", "uri = \"qemu+ssh://kvm1/system\"\nssh_config = \"~/.ssh/config\"\n", "", 0},
		{"socket named", "uri = \"qemu+ssh://root@kvm1/session?socket=/run/user/0/libvirt/libvirt-sock\"\n", "", 0},
		{"agent on a local uri", "uri = \"qemu:///system\"\n\nagent = true\n", "SSH setting without SSH", 3},
		{"jump on tcp", "uri = \"qemu+tcp://kvm1/system\"\njump_via_host = true\n", "SSH setting without SSH", 2},
		{"no host", "uri = \"qemu+ssh:///system\"\n", "Invalid libvirt URI", 1},
		{"session without socket", "uri = \"qemu+ssh://kvm1/session\"\n", "Invalid libvirt URI", 1},
		{"relative socket", "uri = \"qemu+ssh://kvm1/system?socket=libvirt-sock\"\n", "Invalid libvirt URI", 1},
		{"bad user", "uri = \"qemu+ssh://Root;x@kvm1/system\"\n", "Invalid user", 1},
		{"bad host key", "uri = \"qemu+ssh://kvm1/system\"\nhost_key = \"nope\"\n", "Invalid host key", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := configure(t, tc.src)
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary != tc.want || diags[0].Subject == nil || diags[0].Subject.Start.Line != tc.line {
				t.Fatalf("diags = %v, want one %q on line %d", diags, tc.want, tc.line)
			}
		})
	}
}

// TestHostSSH: the login comes from the URI and the block, what they
// leave unset from the ssh_config entry.
func TestHostSSH(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte("Host kvm1\n  HostName 192.0.2.7\n  User virt\n  Port 2200\n  IdentityFile /k/virt\n  ProxyJump bastion\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, diags := configure(t, "uri = \"qemu+ssh://kvm1/system\"\nssh_config = \""+cfg+"\"\njump_via_host = true\n")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c, socket, err := p.hostSSH()
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "192.0.2.7" || c.User != "virt" || c.Port != 2200 || c.PrivateKeyFile != "/k/virt" || c.Jump == nil || c.Jump.Host != "bastion" {
		t.Errorf("login = %+v", c)
	}
	if socket != defaultRemoteSocket {
		t.Errorf("socket = %s", socket)
	}
	// The URI's user and port win over the entry's.
	p, _ = configure(t, "uri = \"qemu+ssh://root@kvm1:22/system?socket=/run/x\"\nssh_config = \""+cfg+"\"\n")
	c, socket, _ = p.hostSSH()
	if c.User != "root" || c.Port != 22 || socket != "/run/x" {
		t.Errorf("login = %+v, socket %s", c, socket)
	}
	if j, _ := p.guestJump(); j != nil {
		t.Errorf("a jump without jump_via_host: %+v", j)
	}
}

// TestSSHDialerRealSSHD: the dialer go-libvirt uses logs in to a real
// OpenSSH sshd (host key checked in a known_hosts file) and reaches a
// Unix socket on its side through a direct-streamlocal channel; closing
// the connection logs out.
func TestSSHDialerRealSSHD(t *testing.T) {
	port, key, hostKey := sshtest.StartSSHD(t, "", "127.0.0.1")
	sock := filepath.Join(t.TempDir(), "libvirt-sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); c.Close() }()
		}
	}()
	hk, err := labssh.ParseHostKey(hostKey)
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(known, []byte(knownhosts.Line([]string{"127.0.0.1:" + strconv.Itoa(port)}, hk)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	uri := "qemu+ssh://root@127.0.0.1:" + strconv.Itoa(port) + "/system?socket=" + sock
	p, diags := configure(t, "uri = \""+uri+"\"\nprivate_key_file = \""+key+"\"\nknown_hosts_file = \""+known+"\"\n")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	conn, err := sshDialer{p}.Dial()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("hello libvirtd")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 14)
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "hello libvirtd" {
		t.Fatalf("echo through the socket: %q, %v", buf, err)
	}
	if err := conn.Close(); err != nil {
		t.Error(err)
	}

	// A host key the known_hosts file does not list is refused.
	other := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ = configure(t, "uri = \""+uri+"\"\nprivate_key_file = \""+key+"\"\nknown_hosts_file = \""+other+"\"\n")
	if c, err := (sshDialer{p}).Dial(); err == nil || !strings.Contains(err.Error(), "not in "+other) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("unknown host: %v", err)
	}
}

// TestRemoteHostPinned: a qemu+ssh:// host with neither host_key nor
// known_hosts_file is pinned in the workspace's pin file (the one in
// Configure's context) on first contact, and a different key there later
// is refused with the ssh-keygen command that accepts it — as a borrowed
// machine's or a jump host's (issue 20, section 3). Its key used to be
// accepted unchecked at every connection.
func TestRemoteHostPinned(t *testing.T) {
	port, key, hostKey := sshtest.StartSSHD(t, "", "127.0.0.1")
	sock := filepath.Join(t.TempDir(), "libvirt-sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	pins := filepath.Join(t.TempDir(), "known_hosts")
	uri := "qemu+ssh://root@127.0.0.1:" + strconv.Itoa(port) + "/system?socket=" + sock
	src := "uri = \"" + uri + "\"\nprivate_key_file = \"" + key + "\"\n"
	dial := func() error {
		f, d := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
		if d.HasErrors() {
			t.Fatal(d)
		}
		p := New()
		if d := p.Configure(labssh.WithPinFile(context.Background(), pins), f.Body); d.HasErrors() {
			t.Fatal(d)
		}
		c, err := sshDialer{p}.Dial()
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	b, err := os.ReadFile(pins)
	hk, _ := labssh.ParseHostKey(hostKey)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err != nil || !strings.Contains(string(b), knownhosts.Line([]string{addr}, hk)) {
		t.Fatalf("pin file after the first contact: %v\n%s", err, b)
	}
	if err := dial(); err != nil {
		t.Fatalf("second contact, same key: %v", err)
	}
	// The host's key "changes": the pin names another key.
	_, other, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	otherPub, _ := xssh.NewPublicKey(other.Public())
	if err := os.WriteFile(pins, []byte(knownhosts.Line([]string{addr}, otherPub)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = dial()
	var changed *labssh.HostKeyChangedError
	if !errors.As(err, &changed) || !strings.Contains(err.Error(), labssh.ForgetCommand(pins, addr)) {
		t.Fatalf("changed key: %v, want a refusal naming `%s`", err, labssh.ForgetCommand(pins, addr))
	}
}
