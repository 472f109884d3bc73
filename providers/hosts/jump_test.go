package hosts

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// TestJumpHostRealSSHD: a hosts lab whose machine sits behind a jump
// host, both real OpenSSH sshds in network namespaces: the machine's
// namespace has no route from here, only from the jump host's. The
// provider block says proxy_jump; keys come from ssh-agent, the jump
// host's key from a known_hosts file, the machine's key is pinned.
// Create checks the benchmark interface through the jump, Connect runs a
// command there.
func TestJumpHostRealSSHD(t *testing.T) {
	p := netnstest.NewPair(t) // A: jump host, B: the machine; skips unless root
	jumpAddr := "198.19.254.2"
	p.LinkA(t, "198.19.254.1", jumpAddr)
	_, jKey, jHostKey := sshtest.StartSSHD(t, p.A.NS, jumpAddr)
	_, mKey, mHostKey := sshtest.StartSSHD(t, p.B.NS, p.B.Addr)

	// ssh-agent with both client keys (x/crypto/ssh/agent keyring).
	kr := agent.NewKeyring()
	for _, f := range []string{jKey, mKey} {
		pem, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		k, err := xssh.ParseRawPrivateKey(pem)
		if err != nil {
			t.Fatal(err)
		}
		if err := kr.Add(agent.AddedKey{PrivateKey: k}); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _ = agent.ServeAgent(kr, c); c.Close() }()
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)
	hk, err := labssh.ParseHostKey(jHostKey)
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(knownhosts.Line([]string{jumpAddr}, hk)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	src := fmt.Sprintf(`server {
  address          = %q
  iface            = %q
  host_key         = %q
  proxy_jump       = "root@%s"
  agent            = true
  known_hosts_file = %q
  private_key_file = %q
}
client {
  address = "198.18.0.9"
  iface   = "eth1"
}
`, p.B.Addr, p.B.Iface, mHostKey, jumpAddr, known, filepath.Join(dir, "no-such-key"))
	prov, diags := configure(t, src, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	prov.Retry = 5 * time.Second
	ctx := context.Background()
	in, err := prov.Create(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := prov.Connect(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Run(ctx, guest.Cmd{Argv: []string{"ip", "-o", "-4", "addr", "show"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Stdout), p.B.Addr+"/24") || strings.Contains(string(res.Stdout), jumpAddr) {
		t.Errorf("not the machine behind the jump host:\n%s", res.Stdout)
	}

	// Without host_key and known_hosts_file, the workspace's pin file
	// pins the machine and the jump host on first contact.
	pins := filepath.Join(dir, "ws", "known_hosts")
	pctx := labssh.WithPinFile(ctx, pins)
	src = strings.NewReplacer(fmt.Sprintf("host_key         = %q\n", mHostKey), "",
		fmt.Sprintf("known_hosts_file = %q\n", known), "").Replace(src)
	prov, diags = configure(t, src, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	prov.Retry = 5 * time.Second
	in, err = prov.Create(pctx, server)
	if err != nil {
		t.Fatal(err)
	}
	tr2, err := prov.Connect(pctx, in)
	if err != nil {
		t.Fatal(err)
	}
	tr2.Close()
	b, err := os.ReadFile(pins)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{jumpAddr + " " + jHostKey, p.B.Addr + " " + mHostKey} {
		if !strings.Contains(string(b), want) {
			t.Errorf("pin file lacks %q:\n%s", want, b)
		}
	}
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("%d pins, want 2:\n%s", n, b)
	}
}

func TestProxyJumpRefused(t *testing.T) {
	for _, v := range []string{"root@gw:http", "gw:0", "a b"} {
		_, d := configure(t, fmt.Sprintf("server {\n address = \"192.0.2.1\"\n iface = \"eth1\"\n proxy_jump = %q\n}\nclient {\n address = \"192.0.2.2\"\n iface = \"eth1\"\n}\n", v), nil)
		if !d.HasErrors() || !strings.Contains(d.Error(), "proxy_jump") {
			t.Errorf("proxy_jump %q: %v", v, d)
		}
	}
}
