package hosts

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	_ "github.com/lab-bench/lab/bench/tools" // the tools declare their version commands (machineIdentity)
	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

func configure(t *testing.T, src string, ec *hcl.EvalContext) (*Provider, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := New()
	ctx := context.Background()
	if ec != nil {
		ctx = providers.WithEvalContext(ctx, ec)
	}
	return p, p.Configure(ctx, f.Body)
}

const good = `
server {
  address = "198.18.200.2"
  iface   = "eth1"
  cpus    = "0-1,3"
}
client {
  address       = "bench-client.example"
  port          = 2222
  user          = "lab"
  iface         = "enp1s0f1"
  bench_address = "198.18.1.2"
}
`

func TestConfigure(t *testing.T) {
	p, diags := configure(t, good, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s, c := p.Hosts["server"], p.Hosts["client"]
	if s.Port != 22 || s.User != "root" || s.PrivateKeyFile != "~/.ssh/id_ed25519" || s.BenchAddress != "198.18.200.2" || fmt.Sprint(cpuList(s.CPUs)) != "[0 1 3]" {
		t.Errorf("server defaults: %+v", s)
	}
	if c.Port != 2222 || c.User != "lab" || c.BenchAddress != "198.18.1.2" {
		t.Errorf("client: %+v", c)
	}
}

func TestConfigureVariables(t *testing.T) {
	src := strings.Replace(good, `"198.18.200.2"`, "var.server", 1)
	ec := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{"server": cty.StringVal("198.18.7.7")})}}
	p, diags := configure(t, src, ec)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p.Hosts["server"].Address != "198.18.7.7" {
		t.Errorf("address %q", p.Hosts["server"].Address)
	}
}

// TestRolesAreTheBlocks: a block with one machine gives one end of a
// cross pair; the plan refuses a template of it in any other role.
func TestRolesAreTheBlocks(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n}\n", []string{"server"}},
		{"client {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n}\nrouter {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n  iface2 = \"eth2\"\n}\n", []string{"client", "router"}},
	} {
		p, diags := configure(t, tc.src, nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		c := p.Capabilities()
		if !slices.Equal(c.Roles, tc.want) || !c.ExistingNetwork || !c.RoutedPairs {
			t.Errorf("%q: roles %v (want %v), existing network %v, routed %v", tc.src, c.Roles, tc.want, c.ExistingNetwork, c.RoutedPairs)
		}
	}
}

func TestConfigureErrors(t *testing.T) {
	tests := []struct {
		name, src string
		summary   string
		line      int // where the diagnostic points
	}{
		{"no machine", "", "Missing server or client block", 1},
		{"router without iface2", "router {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n}\n", "Missing iface2", 1},
		{"iface2 on an end", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  iface2 = \"eth2\"\n}\n", "Unexpected iface2", 4},
		{"bad iface2", "router {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  iface2 = \"eth2;x\"\n}\n", "Invalid interface", 4},
		{"iface required", "server {\n  address = \"198.18.0.1\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Missing required argument", 1},
		{"bad iface", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1; reboot\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Invalid interface", 3},
		{"bad port", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  port = 70000\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Invalid port", 4},
		{"bad host key", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  host_key = \"ssh-ed25519 nope\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Invalid host key", 4},
		{"bench address not an IP", "server {\n  address = \"h.example\"\n  iface = \"eth1\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Invalid benchmark address", 2},
		{"bad cpus", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  cpus = \"all\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Invalid CPU list", 4},
		{"unknown argument", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n  password = \"x\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Unsupported argument", 4},
		{"duplicate server", "server {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n}\nserver {\n  address = \"198.18.0.1\"\n  iface = \"eth1\"\n}\nclient {\n  address = \"198.18.0.2\"\n  iface = \"eth1\"\n}\n", "Duplicate server block", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := configure(t, tc.src, nil)
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			d := diags[0]
			if d.Summary != tc.summary || d.Subject == nil || d.Subject.Start.Line != tc.line {
				t.Errorf("got %q at %v, want %q at line %d", d.Summary, d.Subject, tc.summary, tc.line)
			}
		})
	}
}

// host plays an existing Linux machine with interface eth1.
func host(cmd string, stdin io.Reader) (string, string, int) {
	_, _ = io.Copy(io.Discard, stdin)
	if cmd == "ip link show dev eth1" {
		return "3: eth1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500\n", "", 0
	}
	if strings.HasPrefix(cmd, "ip link show dev") {
		return "", "Device \"" + strings.Fields(cmd)[4] + "\" does not exist.\n", 1
	}
	return "ran: " + cmd, "", 0
}

func serverProvider(t *testing.T, s *sshtest.Server, iface, hostKey string) *Provider {
	t.Helper()
	src := fmt.Sprintf("server {\n address = %q\n port = %d\n private_key_file = %q\n iface = %q\n host_key = %q\n cpus = \"1\"\n}\n"+
		"client {\n address = \"198.18.0.2\"\n iface = \"eth1\"\n}\n", s.Host(), s.Port(), s.ClientKeyFile(), iface, hostKey)
	p, diags := configure(t, src, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.Retry = time.Second
	return p
}

var server = machine.Machine{Address: "pair.bm.server", Role: "server", Name: "lab-t-bm-s", Template: machine.Template{OS: "linux"}}

func TestCreateRecordsHostAndKey(t *testing.T) {
	s := sshtest.NewServer(t, host)
	p := serverProvider(t, s, "eth1", "")
	start := time.Now()
	in, err := p.Create(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("create (SSH connect + interface check) took %v", time.Since(start).Round(time.Millisecond))
	want := map[string]string{"role": "server", "os": "linux", "borrowed": "true"}
	for k, v := range want {
		if in.Attrs[k] != v {
			t.Errorf("Attrs[%s] = %q, want %q", k, in.Attrs[k], v)
		}
	}
	ep := machine.EndpointOf(in)
	if ep.Addr != "127.0.0.1" || ep.Iface != "eth1" || fmt.Sprint(ep.CPUs) != "[1]" || ep.SSHHost != "127.0.0.1" ||
		ep.SSH == nil || ep.SSH.HostKey != s.HostKey() || ep.TemplateID != "ran: uname -sr; ran: iperf3 --version" {
		t.Errorf("endpoint %+v", ep)
	}
	for k := range in.Attrs {
		if strings.Contains(k, "password") || strings.Contains(k, "key_file") {
			t.Errorf("credential-like attribute %s recorded", k)
		}
	}
	tr, err := p.Connect(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	res, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"uname", "-r"}})
	if err != nil || string(res.Stdout) != "ran: uname -r" {
		t.Errorf("run over Connect: %q %v", res.Stdout, err)
	}
	if err := p.Delete(context.Background(), in); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if l, err := p.Link(context.Background(), providers.LinkSpec{Address: "pair.bm.link", Name: "lab-t-bm"}); err != nil || l.Kind != "link" {
		t.Errorf("Link: %+v %v", l, err)
	}
}

func TestCreateMissingInterface(t *testing.T) {
	s := sshtest.NewServer(t, host)
	p := serverProvider(t, s, "eth9", "")
	_, err := p.Create(context.Background(), server)
	if err == nil || !strings.Contains(err.Error(), "benchmark interface eth9") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("got %v", err)
	}
}

func TestChangedHostKeyRefused(t *testing.T) {
	s := sshtest.NewServer(t, host)
	impostor := sshtest.NewServer(t, host)
	tests := []struct {
		name    string
		pinned  string // host_key in the spec
		connect bool   // recorded key checked at Connect (else at Create)
	}{
		{"pinned in the spec", impostor.HostKey(), false},
		{"recorded at first contact", "", true},
		{"recorded in a state from before pin files", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := serverProvider(t, s, "eth1", tc.pinned)
			in, err := p.Create(context.Background(), server)
			if tc.connect {
				if err != nil {
					t.Fatal(err)
				}
				in.Endpoint.SSH.HostKey = impostor.HostKey() // the machine was "reinstalled"
				ctx := context.Background()
				if strings.Contains(tc.name, "pin files") {
					// The pin file does not exist yet: the recorded key is
					// pinned, not the one presented trusted anew.
					ctx = labssh.WithPinFile(ctx, filepath.Join(t.TempDir(), "known_hosts"))
				}
				_, err = p.Connect(ctx, in)
			}
			if err == nil || !strings.Contains(err.Error(), "host key changed") || !strings.Contains(err.Error(), "SHA256:") {
				t.Fatalf("got %v, want a refusal naming both fingerprints", err)
			}
		})
	}
}
