package vsphere

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// baseBlock is a provider block for the simulator; guests report the
// address extra_config gives them (198.51.100.1 server, .2 client).
const baseBlock = `
datacenter   = "DC0"
cluster      = "DC0_C0"
datastore    = "LocalDS_0"
extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}", "guestinfo.lab" = "{lab}/{name}" }
ip_timeout   = "20s"
`

func body(t testing.TB, src string) hcl.Body {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "provider.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return f.Body
}

// configured returns a provider configured against sim with extra
// attributes (network defaults to the standard port group).
func configured(t testing.TB, sim *vspheretest.Sim, extra string) *Provider {
	t.Helper()
	if !strings.Contains(extra, "network") {
		extra += fmt.Sprintf("\nnetwork = %q\n", vspheretest.Network)
	}
	p := New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), body(t, baseBlock+extra)); d.HasErrors() {
		t.Fatal(d)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// testWS is the workspace the tests' machines belong to.
const testWS = "ws000001"

func testMachine(labID, pair, role, source, osName string) machine.Machine {
	return machine.Machine{Address: "pair." + pair + "." + role, LabID: labID, Workspace: testWS, Pair: pair, Role: role,
		Name: labID + "-" + pair + "-" + role[:1], VCPU: 2, MemoryMiB: 2048, NIC: machine.NIC{Model: "vmxnet3"},
		Template: machine.Template{Name: osName, Source: source, OS: osName,
			SSH: &machine.Login{User: "root", PrivateKeyFile: "/k", Port: 22}}}
}

func TestConfigureDiagnostics(t *testing.T) {
	tests := []struct{ src, env, want string }{
		{`url = "https://vc/sdk"` + "\n" + `colour = "red"`, "", `no argument "colour"`},
		{`datacenter = "DC0"`, "", "Missing vCenter URL"},
		{`url = "https://u:secret@vc/sdk"`, "", "Password in URL"},
		{`url = "https://vc/sdk"` + "\n" + `ip_timeout = "soon"`, "", "Invalid ip_timeout"},
		{`url = "https://vc/sdk"` + "\n" + `ignored_ip_ranges = ["10.0.0.0"]`, "", "Invalid ignored_ip_ranges"},
		{`url = var.vcenter`, "", "Variables not allowed"}, // no eval context given (the CLI gives one)
		{`url = "https://vc/sdk"` + "\n" + `link_mode = "private"`, "", `provider.hcl:2,13-22: Invalid link_mode; link_mode must be "own-switch"`},
		{`url = "https://vc/sdk"` + "\n" + `link_mode = "own-switch"`, "", "provider.hcl:2,13-25: own-switch needs a host"},
		{`url = "https://vc/sdk"` + "\n" + `link_mode = "own-switch"` + "\n" + `host = "h1"`, "", ""},
		{`url = "https://vc/sdk"` + "\n" + `link_mode = "shared-switch"`, "", ""},
		{`datacenter = "DC0"`, "https://vc/sdk", ""},
		{`datacenter = "DC0"`, "https://u:secret@vc/sdk", ""}, // govc's habit, from the environment only
	}
	for _, tc := range tests {
		p := New()
		p.Getenv = func(k string) string {
			if k == "GOVC_URL" {
				return tc.env
			}
			return ""
		}
		d := p.Configure(context.Background(), body(t, tc.src))
		got := d.Error()
		if tc.want == "" && d.HasErrors() || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diags %q, want %q", tc.src, got, tc.want)
		}
		if strings.Contains(got, "secret") {
			t.Errorf("diagnostic shows the password: %s", got)
		}
	}
}

// TestLifecycle clones a machine from a template made from a powered-off
// VM, checks its shape, NIC, tags and address, lists it, deletes it twice
// and checks that no VM and no folder is left; the vSwitch MTU is set by
// Link and restored by deleting the link.
func TestLifecycle(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, `custom_attribute = "lab"`)
	ctx := context.Background()
	before := sim.VMs()

	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.fbsd.link", LabID: "t1", Pair: "fbsd", Name: "t1-fbsd", MTU: 9000, Index: 3})
	if err != nil {
		t.Fatal(err)
	}
	for host, mtu := range sim.HostMTUs() {
		if want := map[bool]int32{true: 9000, false: 0}[strings.HasPrefix(host, "DC0_C0_")]; mtu != want {
			t.Errorf("%s MTU %d after Link, want %d (the cluster's hosts only)", host, mtu, want)
		}
	}
	if !strings.Contains(link.Attrs["host_lro"], "Net.Vmxnet3HwLRO=1 Net.Vmxnet3SwLRO=1") || link.Attrs["switches"] == "" {
		t.Errorf("link attrs %v", link.Attrs)
	}

	m := testMachine("t1", "fbsd", "server", vspheretest.FreeBSD, "freebsd")
	m.Link = link
	in, err := p.Create(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if in.Attrs["lab_id"] != "t1" {
		t.Errorf("attrs %v", in.Attrs)
	}
	if ep := machine.EndpointOf(in); ep.Addr != "198.51.100.1" || ep.SSHHost != ep.Addr || ep.Iface != "vmx0" || ep.SSH == nil ||
		ep.SSH.User != "root" || ep.SSH.Port != 22 || !strings.HasPrefix(ep.TemplateID, "instance-uuid ") {
		t.Errorf("endpoint %+v", ep)
	}
	for _, k := range []string{"uuid", "moref"} {
		if in.Attrs[k] == "" {
			t.Errorf("no %s attr: %v", k, in.Attrs)
		}
	}
	for k, v := range in.Attrs {
		if strings.Contains(strings.ToLower(k), "password") || v == sim.Password {
			t.Errorf("credential in attrs: %s=%s", k, v)
		}
	}
	vm := sim.Model.Map().Get(types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID}).(*simulator.VirtualMachine)
	if vm.Config.Hardware.NumCPU != 2 || vm.Config.Hardware.MemoryMB != 2048 || *vm.Config.Hardware.NumCoresPerSocket != 2 {
		t.Errorf("hardware %d vCPU (%d per socket), %d MB", vm.Config.Hardware.NumCPU, *vm.Config.Hardware.NumCoresPerSocket, vm.Config.Hardware.MemoryMB)
	}
	var nics []string
	for _, d := range vm.Config.Hardware.Device {
		if _, ok := d.(types.BaseVirtualEthernetCard); ok {
			nics = append(nics, fmt.Sprintf("%T", d))
		}
	}
	if len(nics) != 1 || nics[0] != "*types.VirtualVmxnet3" {
		t.Errorf("NICs %v, want exactly one vmxnet3", nics)
	}
	if tag, _ := annotationTag(vm.Config.Annotation); tag != "lab/1 lab=t1 ws="+testWS+" addr=pair.fbsd.server" {
		t.Errorf("annotation %q", vm.Config.Annotation)
	}
	if len(vm.CustomValue) != 1 || vm.CustomValue[0].(*types.CustomFieldStringValue).Value != "lab/1 lab=t1 ws="+testWS+" addr=pair.fbsd.server" {
		t.Errorf("custom attribute %+v", vm.CustomValue)
	}
	ec := map[string]string{}
	for _, o := range vm.Config.ExtraConfig {
		ec[o.GetOptionValue().Key] = fmt.Sprint(o.GetOptionValue().Value)
	}
	if ec["guestinfo.lab"] != "t1/t1-fbsd-s" {
		t.Errorf("extra config %v", ec)
	}
	if vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn || !sim.Folder("lab-t1-"+testWS) {
		t.Errorf("power %s, folder %v", vm.Runtime.PowerState, sim.Folder("lab-t1-"+testWS))
	}
	if _, ok, err := p.Read(ctx, in); !ok || err != nil {
		t.Errorf("Read = %v, %v", ok, err)
	}
	found, err := p.List(ctx, machine.Owner{Lab: "t1", Workspace: testWS})
	if err != nil || len(found) != 1 || found[0].Address != "pair.fbsd.server" || found[0].ID != in.ID {
		t.Errorf("List = %+v, %v", found, err)
	}
	for _, o := range []machine.Owner{{Lab: "t2", Workspace: testWS}, {Lab: "t1", Workspace: "ws000002"}, {Lab: "t", Workspace: testWS}, {Lab: "t1"}} {
		if other, _ := p.List(ctx, o); len(other) != 0 {
			t.Errorf("List(%+v) = %+v", o, other)
		}
	}

	for i := 0; i < 2; i++ {
		if err := p.Delete(ctx, in); err != nil {
			t.Fatalf("delete (try %d): %v", i+1, err)
		}
	}
	if _, ok, err := p.Read(ctx, in); ok || err != nil {
		t.Errorf("Read after delete = %v, %v", ok, err)
	}
	if got := sim.VMs(); len(got) != len(before) {
		t.Errorf("VMs after delete %v, before %v", got, before)
	}
	if sim.Folder("lab-t1-" + testWS) {
		t.Error("lab folder left after delete")
	}
	for i := 0; i < 2; i++ {
		if err := p.Delete(ctx, link); err != nil {
			t.Fatal(err)
		}
	}
	for sw, mtu := range sim.VSwitchMTUs() {
		if strings.HasSuffix(sw, "/vSwitch0") && mtu != 1500 && mtu != 0 {
			t.Errorf("%s MTU %d after link delete, want it restored", sw, mtu)
		}
	}
}

func TestDVSMaxMTUSetAndRestored(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("network = %q", vspheretest.DVPortgroup))
	ctx := context.Background()
	was := sim.DVSMaxMTU()
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.d.link", LabID: "t", Pair: "d", MTU: 9000})
	if err != nil {
		t.Fatal(err)
	}
	if got := sim.DVSMaxMTU(); got != 9000 || link.Attrs["switch"] != "dvs" {
		t.Errorf("MaxMtu %d, attrs %v", got, link.Attrs)
	}
	m := testMachine("t", "d", "client", vspheretest.Debian, "linux")
	m.NIC.Model = "e1000e"
	in, err := p.Create(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if ep := machine.EndpointOf(in); ep.Addr != "198.51.100.2" || ep.Iface != "ens192" || in.Attrs["nic_model"] != "e1000e" {
		t.Errorf("endpoint %+v, attrs %v", ep, in.Attrs)
	}
	if err := p.Delete(ctx, in); err != nil {
		t.Fatal(err)
	}
	if err := p.Delete(ctx, link); err != nil {
		t.Fatal(err)
	}
	if got := sim.DVSMaxMTU(); got != was && !(was == 0 && got == 1500) {
		t.Errorf("MaxMtu %d after delete, was %d", got, was)
	}
}

// TestDeletePendingByName deletes a machine state knows only as pending
// (name and lab id, no managed object id).
func TestDeletePendingByName(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	in, err := p.Create(ctx, testMachine("pend", "p", "server", vspheretest.FreeBSD, "freebsd"))
	if err != nil {
		t.Fatal(err)
	}
	pending := machine.Instance{Address: in.Address, Kind: "machine", Name: in.Name, Owner: machine.Owner{Lab: "pend", Workspace: testWS},
		Attrs: map[string]string{"lab_id": "pend"}}
	if err := p.Delete(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.Read(ctx, in); ok || sim.Folder("lab-pend-"+testWS) {
		t.Error("pending machine not removed by name")
	}
}

// TestCreateReplacesLeftover: a VM of the same name left in the lab's
// folder by a crash is removed before the clone.
func TestCreateReplacesLeftover(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	m := testMachine("left", "p", "server", vspheretest.FreeBSD, "freebsd")
	first, err := p.Create(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	second, err := p.Create(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == second.ID {
		t.Error("leftover reused")
	}
	if err := p.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.Read(ctx, first); ok {
		t.Error("leftover still there")
	}
}

func TestIPTimeoutNamesVM(t *testing.T) {
	sim := vspheretest.Start(t)
	p := New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), body(t, `datacenter = "DC0"
cluster = "DC0_C0"
network = "VM Network"
ip_timeout = "1s"
extra_config = { "SET.guest.ipAddress" = "169.254.3.4" }`)); d.HasErrors() {
		t.Fatal(d)
	}
	start := time.Now()
	in, err := p.Create(context.Background(), testMachine("ipt", "p", "server", vspheretest.FreeBSD, "freebsd"))
	if err == nil || !strings.Contains(err.Error(), "ipt-p-s: wait for the IP address: ") || !strings.Contains(err.Error(), "ip_timeout") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 15*time.Second {
		t.Errorf("timeout took %v", time.Since(start))
	}
	if in.ID == "" {
		t.Error("half-made VM not reported for teardown")
	}
	if err := p.Delete(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func TestLinkedCloneNeedsSnapshot(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "linked_clone = true")
	_, err := p.Create(context.Background(), testMachine("lc", "p", "server", vspheretest.FreeBSD, "freebsd"))
	if err == nil || !strings.Contains(err.Error(), "lc-p-s: clone: from freebsd-14.2-tmpl: linked clone") {
		t.Fatalf("err = %v", err)
	}
}

func TestMeterCPU(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	in, err := p.Create(ctx, testMachine("cpu", "p", "server", vspheretest.FreeBSD, "freebsd"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Delete(ctx, in)
	stop, err := p.MeterCPU(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	h, err := stop(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulator host CPU: %+v", h)
	if !strings.HasPrefix(h.Source, "vsphere:cpu.usage.average") || h.BusyPct < 0 || h.BusyPct > 100 {
		t.Errorf("host CPU %+v", h)
	}
}

// TestOwnership: a VM in the lab's folder under a machine's name is
// destroyed only when it carries this lab's and workspace's exact tag — at
// Delete of a pending entry and as a leftover before a clone — and
// otherwise refused with a message naming it. An empty annotation is the
// case that used to be destroyed (vCenter returns no config.annotation
// for it, and the check was skipped).
func TestOwnership(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	owner := machine.Owner{Lab: "own", Workspace: testWS}
	tests := []struct {
		name, annotation string
		destroyed        bool
	}{
		{"empty annotation", "", false},
		{"hand-written", "database server, do not touch", false},
		{"other workspace", machine.Owner{Lab: "own", Workspace: "ws000002"}.Tag("pair.p.server"), false},
		{"other lab, same prefix", machine.Owner{Lab: "own2", Workspace: testWS}.Tag("pair.p.server"), false},
		{"lab 0.1 annotation", "lab-id: own\nlab-address: pair.p.server", false},
		{"this lab's tag", owner.Tag("pair.p.server"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testMachine("own", "p", "server", vspheretest.FreeBSD, "freebsd")
			for _, op := range []string{"delete", "leftover"} {
				ref := sim.PlantVM(t, FolderName(owner), m.Name, tc.annotation)
				var err error
				if op == "delete" {
					err = p.Delete(ctx, machine.Instance{Address: m.Address, Kind: "machine", Name: m.Name, Owner: owner, Attrs: map[string]string{"lab_id": "own"}})
				} else {
					var in machine.Instance
					in, err = p.Create(ctx, m)
					if err == nil {
						if derr := p.Delete(ctx, in); derr != nil {
							t.Fatal(derr)
						}
					}
				}
				if tc.destroyed {
					if err != nil || sim.Exists(ref) {
						t.Errorf("%s: err %v, VM left %v", op, err, sim.Exists(ref))
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), m.Name) || !strings.Contains(err.Error(), "is not this lab's") || !sim.Exists(ref) {
					t.Errorf("%s: err %v, VM kept %v", op, err, sim.Exists(ref))
				}
				if found, _ := p.List(ctx, owner); len(found) != 0 {
					t.Errorf("List found %+v", found)
				}
				sim.Remove(t, ref)
			}
		})
	}
}
