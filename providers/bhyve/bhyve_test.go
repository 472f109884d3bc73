package bhyve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// newHost starts an in-process SSH server playing a FreeBSD host and a
// provider configured with extra (HCL attributes) that reaches it.
func newHost(t *testing.T, extra string) (*Provider, *fakeHost, *sshtest.Server) {
	t.Helper()
	h := newFakeHost()
	srv := newServer(t, h)
	src := fmt.Sprintf("host = %q\nport = %d\nhost_key = %q\n%s\n", srv.Host(), srv.Port(), srv.HostKey(), extra)
	p, diags := configure(t, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.signer, p.poll = srv.ClientSigner(), time.Millisecond
	p.startGrace, p.lockTimeout = 500*time.Millisecond, 2*time.Second
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, h, srv
}

func newServer(t *testing.T, h *fakeHost) *sshtest.Server { return sshtest.NewServer(t, h.handle) }

func configure(t *testing.T, src string) (*Provider, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := New()
	return p, p.Configure(context.Background(), f.Body)
}

func testMachine(role, os string, link machine.Instance) machine.Machine {
	src := map[string]string{"freebsd": "fbsd14-tmpl", "linux": "ubuntu-tmpl"}[os]
	return machine.Machine{Address: "pair.cc." + role, LabID: "t", Pair: "cc", Role: role, Name: "t-cc-" + role[:1],
		Template: machine.Template{Name: os, Source: src, OS: os, SSH: &machine.Login{User: "root", PrivateKeyFile: "~/.ssh/lab"}},
		VCPU:     1, MemoryMiB: 2048, Link: link}
}

// TestTranscripts creates a pair (link, FreeBSD server, Linux client) and
// tears it down in each mode; the host's command log is golden.
func TestTranscripts(t *testing.T) {
	tests := []struct{ name, extra string }{
		{"vm-bhyve", `backend = "vm-bhyve"
uplink = "igb1"`},
		{"vm-bhyve-existing-switch-static", `switch = "public"
address_discovery = "static"
addresses = { "cc.server" = "198.18.0.2", "cc.client" = "198.18.0.3" }`},
		{"raw", `backend = "bhyve"
datastore = "zroot/vm"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, h, srv := newHost(t, tc.extra)
			ctx := context.Background()
			// A lab with a workspace: every object carries the owner's tag.
			link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Workspace: "w1", Pair: "cc", Name: "t-cc", MTU: 9000})
			if err != nil {
				t.Fatal(err)
			}
			var ins []machine.Instance
			for _, m := range []machine.Machine{testMachine("server", "freebsd", link), testMachine("client", "linux", link)} {
				m.Workspace = "w1"
				if p.cfg.Backend == BackendRaw {
					m.Template.Source = strings.Replace(m.Template.Source, "-tmpl", "-zvol", 1)
				}
				in, err := p.Create(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				if ep := machine.EndpointOf(in); ep.Addr == "" || ep.Iface == "" || !strings.HasPrefix(ep.TemplateID, "zfs guid ") {
					t.Errorf("%s: endpoint %+v", m.Address, ep)
				}
				ins = append(ins, in)
			}
			found, err := p.List(ctx, machine.Owner{Lab: "t", Workspace: "w1"})
			if err != nil {
				t.Fatal(err)
			}
			wantFound := 3
			if link.Attrs["nominal"] == "true" {
				wantFound = 2
			}
			if len(found) != wantFound {
				t.Errorf("List found %+v, want %d objects", found, wantFound)
			}
			for _, in := range append(ins, link) {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
				if _, ok, err := p.Read(ctx, in); err != nil || (ok && in.Attrs["nominal"] != "true") {
					t.Errorf("%s still there after Delete (%v)", in.Name, err)
				}
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left on the host: %v", left)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), foldPolls(srv.Commands()))
		})
	}
}

// foldPolls joins the host's command log into a transcript, one command a
// line, writing a run of the same command (a poll of vm list while a VM
// boots or unlocks) once with "(repeated)": how often a poll runs depends
// on timing, that it runs does not.
func foldPolls(cmds []string) string {
	var b strings.Builder
	for i := 0; i < len(cmds); {
		j := i
		for j < len(cmds) && cmds[j] == cmds[i] {
			j++
		}
		b.WriteString(cmds[i])
		if j-i > 1 {
			b.WriteString("  (repeated)")
		}
		b.WriteString("\n")
		i = j
	}
	return b.String()
}

// TestHostKeyPinnedWithoutHostKey: a bhyve host with neither host_key nor
// known_hosts_file is pinned in the workspace's pin file (in the
// command's context) on first contact; a different key pinned there is
// refused with the ssh-keygen command that accepts the new one (issue
// 20, section 3: the host's key used to be accepted unchecked).
func TestHostKeyPinnedWithoutHostKey(t *testing.T) {
	srv := newServer(t, newFakeHost())
	pins := filepath.Join(t.TempDir(), "known_hosts")
	ctx := labssh.WithPinFile(context.Background(), pins)
	connect := func() error {
		p, diags := configure(t, fmt.Sprintf("host = %q\nport = %d\n", srv.Host(), srv.Port()))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p.signer = srv.ClientSigner()
		defer p.Close(context.Background())
		_, err := p.transport(ctx)
		return err
	}
	if err := connect(); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	b, err := os.ReadFile(pins)
	if err != nil || !strings.Contains(string(b), srv.HostKey()) {
		t.Fatalf("pin file after the first contact: %v\n%s", err, b)
	}
	if err := connect(); err != nil {
		t.Fatalf("second contact, same key: %v", err)
	}
	other := sshtest.NewServer(t, nil).HostKey() // another host's key
	addr := net.JoinHostPort(srv.Host(), strconv.Itoa(srv.Port()))
	if err := os.WriteFile(pins, []byte("["+srv.Host()+"]:"+strconv.Itoa(srv.Port())+" "+other+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err = connect()
	var changed *labssh.HostKeyChangedError
	if !errors.As(err, &changed) || !strings.Contains(err.Error(), labssh.ForgetCommand(pins, addr)) {
		t.Fatalf("changed key: %v, want a refusal naming `%s`", err, labssh.ForgetCommand(pins, addr))
	}
}
