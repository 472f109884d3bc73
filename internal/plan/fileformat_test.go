package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// fullPlan is a routed plan against a state with objects to replace and
// delete, with every optional field of the saved plan set, so that the
// golden file pins the encoding of each.
func fullPlan(t *testing.T) *Plan {
	t.Helper()
	at := time.Date(2026, 11, 29, 23, 45, 1, 0, time.UTC)
	owner := machine.Owner{Lab: "routed", Workspace: "6c696e65"}
	st := &state.State{Lineage: "6c696e65-0000-4000-8000-000000000000", Serial: 4, LabID: "routed", Resources: []state.Resource{
		{Instance: machine.Instance{Address: "pair.fw[0a1b2c].server", Provider: "libvirt", Kind: "machine", ID: "u1", Name: "lab-fw-s",
			Owner: owner, Endpoint: &machine.Endpoint{Addr: "198.18.0.5", SSHHost: "192.168.122.5", SSH: &machine.Login{User: "root", Port: 22}}},
			ProviderKey: "local.default", Status: state.Created, Shape: "0a1b2c", CreatedAt: at},
		{Instance: machine.Instance{Address: "pair.gone.link", Provider: "local", Kind: "link", Name: "lab-gone", Owner: owner},
			ProviderKey: "local.default", Status: state.Tainted, CreatedAt: at},
	}}
	p, diags := New(load(t, routedLab), st, Options{Now: at, Vars: []string{"n=1"}, VarFiles: []string{"a.tfvars"},
		OrderSeed: 23, Selection: "-only e", Select: func(Run) bool { return true }})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.AllRuns = 4
	p.Templates = map[string]string{"pair.fw.server": "sha256:ab"}
	p.NetworkChanges = []providers.NetworkChange{{Link: "pair.fw.link", Host: "esx1", Switch: "vSwitch1", Change: "mtu", From: 1500, To: 9000, Note: "n"}}
	g := p.Groups[0]
	g.Server.Template.SSH = &machine.Login{Port: 2222, User: "root", PrivateKeyFile: "/k", HostKey: "ssh-ed25519 AAAA", Agent: true,
		KnownHostsFile: "/kh", SSHConfig: "/sc", ProxyJump: "j@b:22"}
	g.Server.Template.CloudInit = &machine.CloudInit{Packages: []string{"iperf3"}, UserData: "#cloud-config\n"}
	g.Server.NIC = machine.NIC{Model: "virtio", Queues: 4, Host: map[string]bool{"tso": false}, RXQueueSize: 1024, TXQueueSize: 256}
	g.Server.Link = machine.Instance{Address: "pair.fw.link", Provider: "libvirt", Kind: "link", ID: "n1", Name: "lab-fw", Owner: owner,
		Attrs: map[string]string{"bridge": "virbr9"}}
	g.Client.Link2 = machine.Instance{Address: "pair.fw.link2", Name: "lab-fw-2", Endpoint: &machine.Endpoint{Iface: "eth1"}}
	return p
}

// TestPlanFileFormat pins a saved plan (format 3) byte for byte, and that
// Load reads it back as it was made. A change here needs a Format bump.
func TestPlanFileFormat(t *testing.T) {
	p := fullPlan(t)
	dir := t.TempDir()
	if err := p.Save(filepath.Join(dir, "p.plan")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "p.plan"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "plan-file.golden")
	golden.Check(t, path, b)

	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := fullPlan(t)
	want.workspace, want.untouched = "", nil
	got.workspace, got.untouched = "", nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load(plan-file.golden) =\n%+v\nwant\n%+v", got, want)
	}
}
