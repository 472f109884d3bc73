package ssh_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// jumpAddr is the jump host's address on the link between this namespace
// and the jump host's (198.19.255.0/30, inside RFC 2544's 198.18.0.0/15).
const jumpAddr = "198.19.255.2"

// TestRealJump reaches a real sshd that only a jump host can reach: two
// network namespaces J and T joined by a veth pair (198.18.0.1/.2), and a
// veth pair from this namespace to J only; J does not forward. sshd runs
// in both. lab logs in to T through J (a direct-tcpip channel from J's
// sshd, as ssh -J does): once with explicit key files, once through a
// ~/.ssh/config alias with ProxyJump, keys from ssh-agent and J's host
// key from a known_hosts file; then with neither a host key nor a
// known_hosts file for J, whose key is pinned in the workspace's pin file
// on first contact and refused once J's sshd comes back with a new one.
func TestRealJump(t *testing.T) {
	p := netnstest.NewPair(t) // A = J (jump), B = T (target); skips unless root
	p.LinkA(t, "198.19.255.1", jumpAddr)
	jd := sshtest.RunSSHD(t, p.A.NS, jumpAddr)
	jPort, jKey, jHostKey := jd.Port, jd.KeyFile, jd.HostKey
	tPort, tKey, tHostKey := sshtest.StartSSHD(t, p.B.NS, p.B.Addr)
	ctx := context.Background()

	// T is out of reach without J.
	if tr, err := labssh.Dial(ctx, "pair.j.server", labssh.Config{Host: p.B.Addr, Port: tPort, PrivateKeyFile: tKey,
		KnownHostKey: tHostKey, DialTimeout: 2 * time.Second}); err == nil {
		tr.Close()
		t.Fatal("the target answered without the jump host")
	}

	inTarget := func(t *testing.T, c labssh.Config) {
		t.Helper()
		tr, err := labssh.Dial(ctx, "pair.j.server", c)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		res, err := tr.Run(ctx, guest.Cmd{Argv: []string{"ip", "-o", "-4", "addr", "show"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res.Stdout), p.B.Addr+"/24") || strings.Contains(string(res.Stdout), jumpAddr) {
			t.Errorf("the command did not run in the target's namespace:\n%s", res.Stdout)
		}
	}

	t.Run("key-files", func(t *testing.T) {
		inTarget(t, labssh.Config{Host: p.B.Addr, Port: tPort, PrivateKeyFile: tKey, KnownHostKey: tHostKey, Retry: 5 * time.Second,
			Jump: &labssh.Config{Host: jumpAddr, Port: jPort, PrivateKeyFile: jKey, KnownHostKey: jHostKey, Retry: 5 * time.Second}})
	})

	t.Run("ssh-config-agent-known-hosts", func(t *testing.T) {
		dir := t.TempDir()
		sock := sshtest.ServeAgent(t, sshtest.RawKey(t, jKey), sshtest.RawKey(t, tKey))
		hk, err := labssh.ParseHostKey(jHostKey)
		if err != nil {
			t.Fatal(err)
		}
		known := filepath.Join(dir, "known_hosts")
		if err := os.WriteFile(known, []byte(knownhosts.Line([]string{jumpAddr}, hk)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		sc, err := labssh.ParseSSHConfig("Host target\n  HostName " + p.B.Addr + "\n  ProxyJump hyper\n" +
			"Host hyper\n  HostName " + jumpAddr + "\n  User root\n")
		if err != nil {
			t.Fatal(err)
		}
		c, err := labssh.Config{Host: "target", Port: tPort, KnownHostKey: tHostKey, Agent: true, AgentSocket: sock,
			KnownHostsFile: known, Retry: 5 * time.Second}.Resolve(sc)
		if err != nil {
			t.Fatal(err)
		}
		if c.Jump == nil || c.Jump.Host != jumpAddr || !c.Jump.Agent {
			t.Fatalf("resolved %+v", c)
		}
		inTarget(t, c)
	})

	t.Run("jump-host-pinned", func(t *testing.T) { // last: it replaces J's sshd
		pins := filepath.Join(t.TempDir(), "known_hosts")
		pctx := labssh.WithPinFile(ctx, pins)
		jump := &labssh.Config{Host: jumpAddr, Port: jPort, PrivateKeyFile: jKey, Retry: 5 * time.Second}
		c := labssh.Config{Host: p.B.Addr, Port: tPort, PrivateKeyFile: tKey, KnownHostKey: tHostKey, Retry: 5 * time.Second, Jump: jump}
		tr, err := labssh.Dial(pctx, "pair.j.server", c)
		if err != nil {
			t.Fatal(err)
		}
		tr.Close()
		b, err := os.ReadFile(pins)
		hk, _ := labssh.ParseHostKey(jHostKey)
		if err != nil || string(b) != knownhosts.Line([]string{jumpAddr}, hk)+"\n" {
			t.Fatalf("pin file after the first login through J: %v\n%s", err, b)
		}

		jd.Stop()
		jd2 := sshtest.RunSSHD(t, p.A.NS, jumpAddr) // reinstalled: a new host key
		jump.PrivateKeyFile = jd2.KeyFile
		_, err = labssh.Dial(pctx, "pair.j.server", c)
		var hkErr *labssh.HostKeyChangedError
		if !errors.As(err, &hkErr) || !strings.Contains(err.Error(), "jump host "+jumpAddr) ||
			!strings.Contains(err.Error(), "`"+labssh.ForgetCommand(pins, net.JoinHostPort(jumpAddr, "22"))+"`") {
			t.Fatalf("J with a new host key: %v, want a refusal printing the ssh-keygen -R command", err)
		}
		t.Logf("refusal: %v", err)
	})
}
