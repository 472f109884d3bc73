package vsphere

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestListNamesRealOwners: List with AnyWorkspace reports each VM and link
// with the workspace its own tag names (never "*", never the owner asked
// with), and nothing is deleted for an owner whose workspace is a pattern.
func TestListNamesRealOwners(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	var made []machine.Instance
	for _, ws := range []string{"ws00000a", "ws00000b"} {
		l, err := p.Link(ctx, providers.LinkSpec{Address: "pair.p.link", LabID: "real", Workspace: ws, Pair: "p", MTU: 9000, Index: 1})
		if err != nil {
			t.Fatal(err)
		}
		m := testMachine("real", "p", "server", vspheretest.FreeBSD, "freebsd")
		m.Workspace, m.Name, m.Link = ws, "real-p-s-"+ws, l
		in, err := p.Create(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, in, l)
	}
	found, err := p.List(ctx, machine.Owner{Lab: "real", Workspace: machine.AnyWorkspace})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, in := range found {
		got[in.Kind+" "+in.Owner.Workspace]++
		if in.Owner.Lab != "real" || in.Attrs["lab_id"] != "real" {
			t.Errorf("listed %+v", in)
		}
	}
	want := map[string]int{"machine ws00000a": 1, "machine ws00000b": 1, "link ws00000a": 1, "link ws00000b": 1}
	if len(got) != len(want) {
		t.Errorf("List(*) owners %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("List(*) owners %v, want %v", got, want)
		}
	}
	for _, in := range found {
		in.Owner.Workspace = machine.AnyWorkspace
		if err := p.Delete(ctx, in); err == nil || !strings.Contains(err.Error(), "pattern") {
			t.Errorf("Delete %s with workspace *: %v", in.Name, err)
		}
	}
	if err := ownsVM(machine.Owner{Lab: "real", Workspace: machine.AnyWorkspace}, "v", "vm-1",
		machine.Owner{Lab: "real", Workspace: "ws00000a"}.Tag("pair.p.server")); !errors.Is(err, providers.ErrNotOwned) {
		t.Errorf("ownsVM(*) = %v, want a refusal matching providers.ErrNotOwned", err)
	}
	for i := len(made) - 1; i >= 0; i-- {
		if err := p.Delete(ctx, made[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInterruptAfterClone stops lab between the clone and the reconfigure
// that writes the annotation — the window an interrupt or a crash can
// hit — and drops what Create returned, as a killed lab never writes it
// to state. The VM is born tagged (the clone spec's owner option), so a
// new session's List finds it under its address and its owner, and an
// orphan sweep's Delete removes it; another workspace's List does not see
// it.
func TestInterruptAfterClone(t *testing.T) {
	sim := vspheretest.Start(t)
	before := len(sim.VMs())
	p := configured(t, sim, "")
	ctx := context.Background()
	killed := errors.New("killed between clone and tag")
	afterClone = func(string) error { return killed }
	t.Cleanup(func() { afterClone = nil })
	m := testMachine("cut", "p", "server", vspheretest.FreeBSD, "freebsd")
	if _, err := p.Create(ctx, m); !errors.Is(err, killed) {
		t.Fatalf("Create = %v, want the injected stop", err)
	}
	afterClone = nil
	if len(sim.VMs()) != before+1 {
		t.Fatalf("VMs %v: the stop came before the clone", sim.VMs())
	}

	next := configured(t, sim, "") // a new lab process: no state of the VM
	if other, err := next.List(ctx, machine.Owner{Lab: "cut", Workspace: "ws000002"}); err != nil || len(other) != 0 {
		t.Errorf("another workspace lists %+v, %v", other, err)
	}
	found, err := next.List(ctx, m.Owner())
	if err != nil || len(found) != 1 || found[0].Name != m.Name || found[0].Address != m.Address || found[0].Owner != m.Owner() {
		t.Fatalf("List after the interrupt = %+v, %v", found, err)
	}
	if err := next.Delete(ctx, found[0]); err != nil {
		t.Fatal(err)
	}
	if len(sim.VMs()) != before || sim.Folder(FolderName(m.Owner())) {
		t.Errorf("after the sweep: VMs %v, folder left %v", sim.VMs(), sim.Folder(FolderName(m.Owner())))
	}
}

// TestChecksBeforeFirstChange: with DRS off and no host, Link fails with
// the placement error before it changes any host's switch MTU (it used to
// set the MTU on every cluster host and leave the refusal to Create).
func TestChecksBeforeFirstChange(t *testing.T) {
	sim := vspheretest.Start(t)
	sim.DisableDRS(t)
	p := configured(t, sim, "")
	before := sim.HostMTUs()
	_, err := p.Link(context.Background(), providers.LinkSpec{Address: "pair.p.link", LabID: "chk", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1})
	if err == nil || !strings.Contains(err.Error(), "has DRS off") {
		t.Fatalf("Link = %v, want the DRS refusal", err)
	}
	for h, mtu := range sim.HostMTUs() {
		if mtu != before[h] {
			t.Errorf("%s MTU %d after the refused Link, was %d", h, mtu, before[h])
		}
	}
}

// TestDRSSettingsWithPinnedHost: drs_override and keep_together do
// nothing with host set, so each is an error at its attribute.
func TestDRSSettingsWithPinnedHost(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"host = \"h\"\ndrs_override = true", "provider.hcl:3,16-20: drs_override with a pinned host"},
		{"host = \"h\"\nkeep_together = true", "provider.hcl:3,17-21: keep_together with a pinned host"},
		{"drs_override = true", ""},
	} {
		p := New()
		p.Getenv = func(string) string { return "" }
		d := p.Configure(context.Background(), body(t, "url = \"https://vc/sdk\"\n"+tc.src))
		if got := d.Error(); tc.want == "" && d.HasErrors() || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%q: diags %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestDeleteWhilePowerOnInFlight: a teardown that finds a VM whose
// power-on (started by a Create that was interrupted) is still running
// ends with the VM gone, not powered on. The simulator's task delays make
// the power-on land after the power state was first read and before the
// destroy runs, as vCenter's lock does (the destroy then failed with
// InvalidPowerState and left the VM running).
func TestDeleteWhilePowerOnInFlight(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	owner := machine.Owner{Lab: "fly", Workspace: testWS}
	ref := sim.PlantVM(t, FolderName(owner), "fly-p-s", owner.Tag("pair.p.server"))
	simulator.TaskDelay.MethodDelay = map[string]int{"PowerOn": 300, "Destroy": 1000, "LockHandoff": 0}
	t.Cleanup(func() { simulator.TaskDelay.MethodDelay = nil })
	vm := object.NewVirtualMachine(sim.Client.Client, types.ManagedObjectReference{Type: "VirtualMachine", Value: ref})
	if _, err := vm.PowerOn(ctx); err != nil { // not waited for: in flight
		t.Fatal(err)
	}
	err := p.Delete(ctx, machine.Instance{Address: "pair.p.server", Kind: "machine", Name: "fly-p-s", Owner: owner, Attrs: map[string]string{"lab_id": "fly"}})
	if err != nil || sim.Exists(ref) {
		t.Errorf("Delete = %v; VM left: %v", err, sim.Exists(ref))
	}
}

// TestRefusedLeftoverIsNotOwned: a VM under a machine's name in the lab's
// folder that is not the lab's makes Create fail with an error matching
// providers.ErrNotOwned (so the engine records nothing for it, and no
// tainted entry blocks destroy), and returns no instance naming it.
func TestRefusedLeftoverIsNotOwned(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	m := testMachine("ref", "p", "server", vspheretest.FreeBSD, "freebsd")
	ref := sim.PlantVM(t, FolderName(m.Owner()), m.Name, "made by hand")
	in, err := p.Create(context.Background(), m)
	if !errors.Is(err, providers.ErrNotOwned) || in.ID != "" || !sim.Exists(ref) {
		t.Errorf("Create = %+v, %v; VM kept %v", in, err, sim.Exists(ref))
	}
}

// TestLastDestroyRemovesDefinitions: the custom attribute definitions lab
// made (lab-owner, lab-mtu, custom_attribute, and lab-made listing them)
// go with the last object using them; a definition the user made first —
// here the custom_attribute of a second provider — stays, and so does one
// still in use.
func TestLastDestroyRemovesDefinitions(t *testing.T) {
	for _, handMade := range []bool{false, true} {
		t.Run(map[bool]string{false: "made by lab", true: "custom_attribute made by hand"}[handMade], func(t *testing.T) {
			sim := vspheretest.Start(t)
			ctx := context.Background()
			m := object.NewCustomFieldsManager(sim.Client.Client)
			if handMade {
				if _, err := m.Add(ctx, "lab-ca", "VirtualMachine", nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			names := func() map[string]bool {
				defs, err := m.Field(ctx)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]bool{}
				for _, d := range defs {
					out[d.Name] = true
				}
				return out
			}
			before := names()
			p := configured(t, sim, `custom_attribute = "lab-ca"`)
			l, err := p.Link(ctx, providers.LinkSpec{Address: "pair.p.link", LabID: "defs", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1})
			if err != nil {
				t.Fatal(err)
			}
			var made []machine.Instance
			for _, role := range []string{"server", "client"} {
				mc := testMachine("defs", "p", role, vspheretest.FreeBSD, "freebsd")
				mc.Link = l
				in, err := p.Create(ctx, mc)
				if err != nil {
					t.Fatal(err)
				}
				made = append(made, in)
			}
			during := names()
			for _, n := range []string{ownerField, mtuField, "lab-ca", madeField} {
				if !during[n] {
					t.Errorf("no definition %q while the lab runs: %v", n, during)
				}
			}
			if err := p.Delete(ctx, made[0]); err != nil {
				t.Fatal(err)
			}
			if now := names(); !now[ownerField] || !now["lab-ca"] {
				t.Errorf("definitions still in use were removed: %v", now)
			}
			for _, in := range []machine.Instance{made[1], l} {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			after := names()
			for n := range after {
				if !before[n] {
					t.Errorf("definition %q left after the last destroy (before: %v)", n, before)
				}
			}
			if handMade && !after["lab-ca"] {
				t.Error("the hand-made custom_attribute was removed")
			}
			// A new apply adds them again.
			if _, err := p.Link(ctx, providers.LinkSpec{Address: "pair.p.link", LabID: "defs", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1}); err != nil {
				t.Fatalf("Link after the definitions went: %v", err)
			}
			if err := p.Delete(ctx, l); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPlanLink: PlanLink reports, changing nothing, the MTU each cluster
// host's vSwitch would go from and to; nothing once Link made the
// change; a note when another link holds the switch at another MTU; the
// vSwitch own-switch mode would add; and the DRS refusal Link would make.
func TestPlanLink(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	l := providers.LinkSpec{Address: "pair.p.link", LabID: "pl", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1}
	// The simulator's vSwitches have no MTU set (0), as a vSwitch made
	// without one: H1's is set to 1500 by hand, and only H1's is reported
	// as set.
	sim.SetHostMTU("DC0_C0_H1", 1500)
	before := sim.HostMTUs()
	changes, err := p.PlanLink(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %s/%s %s %d(unset %v)->%d %s", c.Link, c.Host, c.Switch, c.Change, c.From, c.FromUnset, c.To, c.Note))
	}
	want := []string{
		"pair.p.link DC0_C0_H0/vSwitch0 mtu 1500(unset true)->9000 ",
		"pair.p.link DC0_C0_H1/vSwitch0 mtu 1500(unset false)->9000 ",
		"pair.p.link DC0_C0_H2/vSwitch0 mtu 1500(unset true)->9000 ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("PlanLink =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for h, mtu := range sim.HostMTUs() {
		if mtu != before[h] {
			t.Errorf("PlanLink changed %s's MTU to %d", h, mtu)
		}
	}
	in, err := p.Link(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := p.PlanLink(ctx, l); err != nil || len(again) != 0 {
		t.Errorf("PlanLink after Link = %+v, %v; want no change", again, err)
	}
	other := l
	other.Address, other.MTU = "pair.q.link", 4000
	held, err := p.PlanLink(ctx, other)
	if err != nil || len(held) != 3 || !strings.Contains(held[0].Note, "held at MTU 9000 by lab/1 lab=pl") || !strings.Contains(held[0].Note, "apply will refuse") {
		t.Errorf("PlanLink of a link wanting another MTU = %+v, %v", held, err)
	}
	if err := p.Delete(ctx, in); err != nil {
		t.Fatal(err)
	}

	own := configured(t, sim, `host = "DC0_C0_H0"`)
	added, err := own.PlanLink(ctx, l)
	if err != nil || len(added) != 1 || added[0].Change != "add" || added[0].Host != "DC0_C0_H0" || !strings.HasPrefix(added[0].Switch, "lab-sw-") || added[0].To != 9000 {
		t.Errorf("own-switch PlanLink = %+v, %v", added, err)
	}

	sim.DisableDRS(t)
	noDRS := configured(t, sim, "")
	if _, err := noDRS.PlanLink(ctx, l); err == nil || !strings.Contains(err.Error(), "has DRS off") {
		t.Errorf("PlanLink with DRS off = %v", err)
	}
}

// TestDRSSettingsWithoutDRSCluster: drs_override and keep_together on a
// placement that is no DRS cluster (a resource pool's standalone host)
// are refused by Link, before any switch changes, instead of ignored.
func TestDRSSettingsWithoutDRSCluster(t *testing.T) {
	sim := vspheretest.Start(t)
	ctx := context.Background()
	for _, attr := range []string{"drs_override", "keep_together"} {
		p := New()
		p.Getenv = sim.Getenv
		src := fmt.Sprintf("datacenter = \"DC0\"\nresource_pool = \"DC0_H0/Resources\"\nnetwork = %q\n%s = true\n", vspheretest.Network, attr)
		if d := p.Configure(ctx, body(t, src)); d.HasErrors() {
			t.Fatal(d)
		}
		before := sim.HostMTUs()
		_, err := p.Link(ctx, providers.LinkSpec{Address: "pair.p.link", LabID: "nd", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1})
		if err == nil || !strings.Contains(err.Error(), attr+" acts through DRS") {
			t.Errorf("%s: Link = %v", attr, err)
		}
		for h, mtu := range sim.HostMTUs() {
			if mtu != before[h] {
				t.Errorf("%s: %s MTU changed to %d", attr, h, mtu)
			}
		}
		p.Close(ctx)
	}
}

// TestRestoresEachHostsMTU: hosts whose vSwitches run at different MTUs
// are planned, changed and restored each to exactly its own — one that
// reported no MTU is left without one again (it used to get an explicit
// 1500) — and one already at the link's MTU is neither listed nor touched.
func TestRestoresEachHostsMTU(t *testing.T) {
	sim := vspheretest.Start(t)
	sim.SetHostMTU("DC0_C0_H0", 1600)
	sim.SetHostMTU("DC0_C0_H1", 9000)
	// DC0_C0_H2's vSwitch reports no MTU (the simulator's default): it
	// runs at 1500 and must be left without one again.
	before := sim.HostMTUs()
	if before["DC0_C0_H2"] != 0 {
		t.Fatalf("DC0_C0_H2 MTU %d, want it unset", before["DC0_C0_H2"])
	}
	p := configured(t, sim, "")
	ctx := context.Background()
	l := providers.LinkSpec{Address: "pair.p.link", LabID: "ex", Workspace: testWS, Pair: "p", MTU: 9000, Index: 1}
	changes, err := p.PlanLink(ctx, l)
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %d->%d", c.Host, c.From, c.To))
	}
	if err != nil || strings.Join(got, ", ") != "DC0_C0_H0 1600->9000, DC0_C0_H2 1500->9000" {
		t.Errorf("PlanLink = %v, %v", got, err)
	}
	in, err := p.Link(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	for h, mtu := range sim.HostMTUs() {
		if strings.HasPrefix(h, "DC0_C0_") && mtu != 9000 {
			t.Errorf("%s MTU %d after Link", h, mtu)
		}
	}
	if err := p.Delete(ctx, in); err != nil {
		t.Fatal(err)
	}
	after := sim.HostMTUs()
	for h, mtu := range before {
		if after[h] != mtu {
			t.Errorf("%s MTU %d after delete, found %d", h, after[h], mtu)
		}
	}
}

// TestOwnSwitchInterruptAfterRecord stops an own-switch Link after the
// host's record is written — at the vSwitch's creation and at the port
// group's — and drops what Link returned, as a killed lab never writes it
// to state. A new session's List finds the link through the record, and
// deleting it leaves the host's network exactly as it was.
func TestOwnSwitchInterruptAfterRecord(t *testing.T) {
	for _, method := range []string{"AddVirtualSwitch", "AddPortGroup"} {
		t.Run(method, func(t *testing.T) {
			sim := vspheretest.Start(t)
			ctx := context.Background()
			before := sim.NetworkInfo(t)
			p := configured(t, sim, fmt.Sprintf("host = %q", pinned))
			clear := sim.Fail(method, "HostNetworkSystem", "*", 1)
			if _, err := p.Link(ctx, linkSpec("a", 9000)); err == nil {
				t.Fatalf("Link succeeded through the injected %s fault", method)
			}
			clear()
			next := configured(t, sim, fmt.Sprintf("host = %q", pinned))
			found, err := next.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS})
			if err != nil || len(found) != 1 || found[0].Kind != "link" {
				t.Fatalf("List after the interrupt = %+v, %v", found, err)
			}
			if err := next.Delete(ctx, found[0]); err != nil {
				t.Fatal(err)
			}
			if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
				t.Errorf("network after the sweep differs:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
			}
		})
	}
}
