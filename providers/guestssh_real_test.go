package providers_test

import (
	"context"
	"errors"
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
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// jumpAddr is the hypervisor's address on the link from this namespace
// (198.19.253.0/30, inside RFC 2544's 198.18.0.0/15).
const jumpAddr = "198.19.253.2"

// TestRealTemplateLoginThroughHypervisor logs in to a created guest the
// way a template's ssh {} block says — keys from ssh-agent, the
// hypervisor's key checked in a known_hosts file, the guest reached
// through the hypervisor (proxy_jump, or ProxyJump in an ssh_config
// file) — against two real sshds: H (the "hypervisor host", reachable
// from here) and G (the "guest", reachable only from H), each in its own
// network namespace.
func TestRealTemplateLoginThroughHypervisor(t *testing.T) {
	p := netnstest.NewPair(t) // A = H, B = G; skips unless root
	p.LinkA(t, "198.19.253.1", jumpAddr)
	_, hKey, hHostKey := sshtest.StartSSHD(t, p.A.NS, jumpAddr)
	_, gKey, gHostKey := sshtest.StartSSHD(t, p.B.NS, p.B.Addr)
	dir := t.TempDir()
	t.Setenv("SSH_AUTH_SOCK", sshtest.ServeAgent(t, sshtest.RawKey(t, hKey), sshtest.RawKey(t, gKey)))

	knownHosts := func(t *testing.T, lines ...string) string {
		f := filepath.Join(t.TempDir(), "known_hosts")
		if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	hyper := knownLine(t, jumpAddr, hHostKey)
	sshConfig := filepath.Join(dir, "config")
	if err := os.WriteFile(sshConfig, []byte("Host "+strings.TrimSuffix(p.B.Addr, "2")+"*\n  ProxyJump hyper\n"+
		"Host hyper\n  HostName "+jumpAddr+"\n  User root\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A new key for G that the known_hosts file says is not G's.
	other := sshtest.PublicKey(t, sshtest.NewKey(t))

	cases := []struct {
		name, block string
		wantErr     any // nil: the login works and runs in G's namespace
	}{
		{"agent, known_hosts, proxy_jump", `agent = true
    known_hosts_file = "` + knownHosts(t, hyper) + `"
    proxy_jump = "root@` + jumpAddr + `"`, nil},
		{"agent, known_hosts, ssh_config alias", `agent = true
    known_hosts_file = "` + knownHosts(t, hyper) + `"
    ssh_config = "` + sshConfig + `"`, nil},
		{"guest listed with another key", `agent = true
    known_hosts_file = "` + knownHosts(t, hyper, knownLine(t, p.B.Addr, other)) + `"
    proxy_jump = "root@` + jumpAddr + `"`, new(*labssh.HostKeyChangedError)},
		{"hypervisor not in known_hosts", `agent = true
    known_hosts_file = "` + knownHosts(t, knownLine(t, p.B.Addr, gHostKey)) + `"
    proxy_jump = "root@` + jumpAddr + `"`, new(*labssh.UnknownHostError)},
		{"no agent, no key file", `known_hosts_file = "` + knownHosts(t, hyper) + `"
    proxy_jump = "root@` + jumpAddr + `"`, new(string)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "lab \"x\" {}\ntemplate \"g\" {\n  ssh {\n    user = \"root\"\n    " + tc.block + "\n  }\n}\n" +
				"pair \"p\" { template = template.g }\nexperiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n"
			l, diags := spec.LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, spec.Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			// A created guest: its address, the template's login, no key
			// recorded yet (first contact).
			in := machine.Instance{Address: "pair.p.server", Endpoint: providers.SSHEndpoint(p.B.Addr, *l.Templates["g"].SSH)}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			tr, err := providers.ConnectGuest(ctx, in, nil, 5*time.Second)
			switch want := tc.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				res, err := tr.Run(ctx, guest.Cmd{Argv: []string{"ip", "-o", "-4", "addr", "show"}})
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(res.Stdout), p.B.Addr+"/24") || strings.Contains(string(res.Stdout), jumpAddr) {
					t.Errorf("the command did not run in the guest's namespace:\n%s", res.Stdout)
				}
				// accept-new: the guest's own key is what lab records.
				if got := tr.(interface{ HostKey() string }).HostKey(); got != gHostKey {
					t.Errorf("recorded host key %q, want G's %q", got, gHostKey)
				}
			case *string:
				if err == nil || !strings.Contains(err.Error(), "no private key") {
					t.Fatalf("err = %v, want no private key", err)
				}
			default:
				if err == nil {
					tr.Close()
					t.Fatal("logged in; want a host key refusal")
				}
				if !errors.As(err, want) {
					t.Fatalf("err = %v (%T), want %T", err, err, want)
				}
			}
		})
	}
}

func knownLine(t *testing.T, host, key string) string {
	t.Helper()
	k, err := labssh.ParseHostKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return knownhosts.Line([]string{host}, k)
}
