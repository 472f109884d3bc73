package vsphere

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

const pinned = "DC0_C0_H0"

// ownSwitches returns the vSwitches named lab-sw-* on a host, with their
// MTU, uplinks and port groups.
func ownSwitches(info types.HostNetworkInfo) map[string]string {
	out := map[string]string{}
	for _, sw := range info.Vswitch {
		if strings.HasPrefix(sw.Name, "lab-sw-") {
			out[sw.Name] = fmt.Sprintf("mtu=%d uplinks=%d bridge=%v portgroups=%v", sw.Mtu, len(sw.Pnic), sw.Spec.Bridge != nil, portgroupsOn(&info, sw.Name))
		}
	}
	return out
}

// TestOwnSwitchLifecycle: with a host pinned, each pair gets its own
// uplink-less vSwitch and port group on that host at the MTU it asked
// (read back), two pairs get two; deleting them leaves every host's
// network exactly as it was, and nothing else changes meanwhile.
func TestOwnSwitchLifecycle(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("host = %q", pinned)) // own-switch is the default with a pinned host
	ctx := context.Background()
	before := sim.NetworkInfo(t)
	a, err := p.Link(ctx, linkSpec("a", 9000))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Link(ctx, linkSpec("b", 4000))
	if err != nil {
		t.Fatal(err)
	}
	during := sim.NetworkInfo(t)
	for host, info := range during {
		if host != pinned && !reflect.DeepEqual(info, before[host]) {
			t.Errorf("host %s's network changed:\nbefore %+v\nafter  %+v", host, before[host], info)
		}
	}
	got := ownSwitches(during[pinned])
	want := map[string]string{
		a.Attrs["vswitch"]: "mtu=9000 uplinks=0 bridge=false portgroups=[" + a.Attrs["portgroup"] + "]",
		b.Attrs["vswitch"]: "mtu=4000 uplinks=0 bridge=false portgroups=[" + b.Attrs["portgroup"] + "]",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("own switches on %s:\n got %v\nwant %v", pinned, got, want)
	}
	// The pinned host's own vSwitch0 and VM Network are untouched.
	if !reflect.DeepEqual(during[pinned].Vswitch[:len(before[pinned].Vswitch)], before[pinned].Vswitch) {
		t.Errorf("pre-existing vSwitches of %s changed", pinned)
	}
	for _, l := range []machine.Instance{a, b} {
		if _, ok, err := p.Read(ctx, l); !ok || err != nil {
			t.Errorf("Read(%s) = %v, %v", l.Address, ok, err)
		}
	}
	// Same link again (a re-apply after a crash): found, not duplicated.
	if again, err := p.Link(ctx, linkSpec("a", 9000)); err != nil || again.Attrs["vswitch"] != a.Attrs["vswitch"] {
		t.Errorf("Link(a) again = %v, %v", again.Attrs, err)
	}
	for _, l := range []machine.Instance{a, b, a} { // deleting twice is fine
		if err := p.Delete(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("networks after delete differ from before:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}
	if _, ok, _ := p.Read(ctx, a); ok {
		t.Error("Read after delete = true")
	}
}

// TestOwnSwitchRefusesWhatIsNotLabs: a hand-made vSwitch and port group
// with the names lab would use are refused at Link (recording nothing) and
// at Delete, and left alone; a switch lab made that an administrator then
// gave another port group is refused at Delete.
func TestOwnSwitchRefusesWhatIsNotLabs(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("host = %q", pinned))
	ctx := context.Background()
	l := linkSpec("a", 9000)
	sw, pg := ownNames(l.Owner(), l.Address)
	sim.AddVSwitch(t, pinned, sw, pg, false)
	before := sim.NetworkInfo(t)
	in, err := p.Link(ctx, l)
	if !errors.Is(err, providers.ErrNotOwned) || in.Kind != "" {
		t.Fatalf("Link over a hand-made switch = %+v, %v; want a refusal recording nothing", in, err)
	}
	forged := machine.Instance{Address: l.Address, Kind: "link", Owner: l.Owner(),
		Attrs: map[string]string{"mode": OwnSwitch, "host": sim.HostRef(pinned), "vswitch": sw, "portgroup": pg, "mtu": "9000"}}
	if err := p.Delete(ctx, forged); !errors.Is(err, providers.ErrNotOwned) {
		t.Errorf("Delete of a hand-made switch = %v", err)
	}
	if found, _ := p.List(ctx, l.Owner()); len(found) != 0 {
		t.Errorf("List found %+v", found)
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("the hand-made switch was touched:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}

	// Switches lab made that changed since: each refused at Delete, and
	// left standing.
	tests := []struct {
		name, want string
		change     func(in machine.Instance)
	}{
		{"admin's port group", "port groups lab did not make (admin-pg)", func(in machine.Instance) {
			addPortgroup(t, sim, in.Attrs["vswitch"], "admin-pg")
		}},
		{"uplink", "has an uplink now", func(in machine.Instance) {
			addUplink(t, sim, in.Attrs["vswitch"])
		}},
		{"another's VM", "has VMs that are not this lab's (admin-vm)", func(in machine.Instance) {
			plantOnPortgroup(t, sim, "admin-vm", in.Attrs["portgroup"])
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := p.Link(ctx, linkSpec(fmt.Sprint("b", i), 9000))
			if err != nil {
				t.Fatal(err)
			}
			tc.change(in)
			if err := p.Delete(ctx, in); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Delete = %v, want %q", err, tc.want)
			}
			if got := ownSwitches(sim.NetworkInfo(t)[pinned]); got[in.Attrs["vswitch"]] == "" {
				t.Error("the switch was removed")
			}
		})
	}
}

// addUplink gives a vSwitch a physical NIC, as an administrator would.
func addUplink(t *testing.T, sim *vspheretest.Sim, vswitch string) {
	t.Helper()
	ctx := context.Background()
	ns := hostNS(t, sim)
	spec := types.HostVirtualSwitchSpec{NumPorts: 128, Mtu: 9000, Bridge: &types.HostVirtualSwitchBondBridge{NicDevice: []string{"vmnic1"}}}
	if err := ns.UpdateVirtualSwitch(ctx, vswitch, spec); err != nil {
		t.Fatal(err)
	}
}

// plantOnPortgroup clones a VM without a lab tag onto the pinned host and
// gives it a NIC on port group pg.
func plantOnPortgroup(t *testing.T, sim *vspheretest.Sim, name, pg string) {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(sim.Client.Client, true)
	dc, err := f.Datacenter(ctx, vspheretest.Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	src, err := f.VirtualMachine(ctx, vspheretest.FreeBSD)
	if err != nil {
		t.Fatal(err)
	}
	host, err := f.HostSystem(ctx, "*/"+pinned)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := host.ResourcePool(ctx)
	if err != nil {
		t.Fatal(err)
	}
	folders, err := dc.Folders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hr, pr := host.Reference(), pool.Reference()
	task, err := src.Clone(ctx, folders.VmFolder, name, types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Host: &hr, Pool: &pr}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vm := object.NewVirtualMachine(sim.Client.Client, info.Result.(types.ManagedObjectReference))
	net, err := f.Network(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	backing, err := net.EthernetCardBackingInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nic, err := object.EthernetCardTypes().CreateEthernetCard("vmxnet3", backing)
	if err != nil {
		t.Fatal(err)
	}
	if err := vm.AddDevice(ctx, nic); err != nil {
		t.Fatal(err)
	}
}

func hostNS(t *testing.T, sim *vspheretest.Sim) *object.HostNetworkSystem {
	t.Helper()
	h := object.NewHostSystem(sim.Client.Client, types.ManagedObjectReference{Type: "HostSystem", Value: sim.HostRef(pinned)})
	ns, err := h.ConfigManager().NetworkSystem(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func addPortgroup(t *testing.T, sim *vspheretest.Sim, vswitch, name string) {
	t.Helper()
	if err := hostNS(t, sim).AddPortGroup(context.Background(), types.HostPortGroupSpec{Name: name, VswitchName: vswitch}); err != nil {
		t.Fatal(err)
	}
}

// TestOwnSwitchOrphans: after state loss, List finds the links' switches
// through the host's records (this workspace's only), and deleting them
// restores every host's network.
func TestOwnSwitchOrphans(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("host = %q", pinned))
	ctx := context.Background()
	before := sim.NetworkInfo(t)
	for _, pair := range []string{"a", "b"} {
		if _, err := p.Link(ctx, linkSpec(pair, 9000)); err != nil {
			t.Fatal(err)
		}
	}
	if other, err := p.List(ctx, machine.Owner{Lab: "lnk", Workspace: "ws000002"}); err != nil || len(other) != 0 {
		t.Errorf("List(other workspace) = %+v, %v", other, err)
	}
	found, err := p.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS})
	if err != nil || len(found) != 2 {
		t.Fatalf("List = %+v, %v", found, err)
	}
	for _, in := range found {
		if err := p.Delete(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("networks after the orphan sweep differ:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}
}

// TestSwitchRecordRace: two lab processes (two providers, two sessions)
// adding holders to one shared switch's record at once must lose none.
// Without a lock in vCenter, read-modify-write of the custom attribute
// lost holders.
func TestSwitchRecordRace(t *testing.T) {
	sim := vspheretest.Start(t)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for w := range 2 {
		p := configured(t, sim, `link_mode = "shared-switch"`+"\n"+fmt.Sprintf("host = %q", pinned))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range n {
				if _, err := p.Link(context.Background(), linkSpec(fmt.Sprintf("w%dk%d", w, k), 9000)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	sw := switchRef{host: types.ManagedObjectReference{Type: "HostSystem", Value: sim.HostRef(pinned)}, name: "vSwitch0"}
	rec, err := readRecord(context.Background(), sim.Client.Client, sw)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Holders) != 2*n {
		t.Errorf("%d holders recorded, want %d (holders lost by concurrent writers)", len(rec.Holders), 2*n)
	}
}

// TestStaleSwitchLock: a lock left by a process that is gone (older than
// LockStale) is taken over; a fresh one held by another machine makes
// Link wait, then fail naming its holder.
func TestStaleSwitchLock(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, `link_mode = "shared-switch"`+"\n"+fmt.Sprintf("host = %q", pinned))
	ctx := context.Background()
	host := types.ManagedObjectReference{Type: "HostSystem", Value: sim.HostRef(pinned)}
	plant := func(at time.Time) {
		m := object.NewCustomFieldsManager(sim.Client.Client)
		def, err := m.Add(ctx, lockName(host), "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := fmt.Sprintf(`{"host":"other-machine","pid":4242,"nonce":"x","at":%q}`, at.UTC().Format(time.RFC3339Nano))
		if err := m.Set(ctx, host, def.Key, v); err != nil {
			t.Fatal(err)
		}
	}
	plant(time.Now().Add(-10 * time.Minute))
	if _, err := p.Link(ctx, linkSpec("a", 9000)); err != nil {
		t.Fatalf("Link with a stale lock: %v", err)
	}
	plant(time.Now())
	defer func(d time.Duration) { LockWait = d }(LockWait)
	LockWait = 300 * time.Millisecond
	if _, err := p.Link(ctx, linkSpec("b", 9000)); err == nil || !strings.Contains(err.Error(), "locked by pid 4242 on other-machine") {
		t.Errorf("Link with a live lock = %v", err)
	}
}

// TestOwnSwitchBatches: links asked for on one host at once are made in
// batches — far fewer host network changes and record writes than links
// — each with its own vSwitch and port group at its MTU and its own
// record entry; removed at once, they leave the host's network and
// records exactly as they were. A batch that fails half-way (a port group
// refused after the vSwitches were made) fails its links, and every one
// of them is still found through the record and removed by an orphan
// sweep.
func TestOwnSwitchBatches(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("host = %q", pinned))
	ctx := context.Background()
	before := sim.NetworkInfo(t)
	const n = 12
	links := make([]machine.Instance, n)
	var wg sync.WaitGroup
	sim.ResetCalls()
	for k := range n {
		wg.Go(func() {
			var err error
			if links[k], err = p.Link(ctx, linkSpec(fmt.Sprint("q", k), 9000+k)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if c := sim.Calls("UpdateNetworkConfig"); c < 1 || c > n/2 || sim.Calls("AddVirtualSwitch")+sim.Calls("AddPortGroup") != 0 {
		t.Errorf("%d links made with %d UpdateNetworkConfig, %d AddVirtualSwitch, %d AddPortGroup calls; want them batched",
			n, c, sim.Calls("AddVirtualSwitch"), sim.Calls("AddPortGroup"))
	}
	t.Logf("%d UpdateNetworkConfig calls for %d links", sim.Calls("UpdateNetworkConfig"), n)
	got := ownSwitches(sim.NetworkInfo(t)[pinned])
	host := types.ManagedObjectReference{Type: "HostSystem", Value: sim.HostRef(pinned)}
	recs, err := readRecords(ctx, sim.Client.Client, host)
	if err != nil {
		t.Fatal(err)
	}
	for k, in := range links {
		sw, pg := in.Attrs["vswitch"], in.Attrs["portgroup"]
		if want := fmt.Sprintf("mtu=%d uplinks=0 bridge=false portgroups=[%s]", 9000+k, pg); got[sw] != want {
			t.Errorf("link %d: %s is %q, want %q", k, sw, got[sw], want)
		}
		if rec := recs[sw]; rec.Portgroup != pg || !contains(rec.Holders, in.Owner.Tag(in.Address)) {
			t.Errorf("link %d: record %+v", k, rec)
		}
	}
	for _, in := range links {
		wg.Go(func() {
			if err := p.Delete(ctx, in); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("network after the batched deletes differs:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}
	if recs, err := readRecords(ctx, sim.Client.Client, host); err != nil || len(recs) != 0 {
		t.Errorf("records left: %+v, %v", recs, err)
	}

	// Half-way: the first port group of a batch is refused after its
	// vSwitches were made.
	clear := sim.Fail("AddPortGroup", "HostNetworkSystem", "*", 1)
	for k := range 4 {
		wg.Go(func() {
			if _, err := p.Link(ctx, linkSpec(fmt.Sprint("h", k), 9000)); err != nil && !strings.Contains(err.Error(), "injected AddPortGroup fault") {
				t.Errorf("Link = %v, want the injected fault", err)
			}
		})
	}
	wg.Wait()
	clear()
	next := configured(t, sim, fmt.Sprintf("host = %q", pinned))
	found, err := next.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS})
	if err != nil || len(found) != 4 {
		t.Fatalf("List after the failed batch = %+v, %v", found, err)
	}
	for _, in := range found {
		if err := next.Delete(ctx, in); err != nil {
			t.Error(err)
		}
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("network after the sweep differs:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}
}

// TestExistingNetworkIsSharedSwitch: in shared-switch mode a VM's one NIC
// is on the user's port group, so it can be one end of a cross pair; an
// own switch has no uplink, so it cannot.
func TestExistingNetworkIsSharedSwitch(t *testing.T) {
	for src, want := range map[string]bool{
		`network = "VM Network"`:                                                        true,
		"host = \"DC0_C0_H0\"\nnetwork = \"VM Network\"":                                false,
		"host = \"DC0_C0_H0\"\nnetwork = \"VM Network\"\nlink_mode = \"shared-switch\"": true,
	} {
		p := New()
		p.Getenv = func(string) string { return "" }
		if d := p.Configure(context.Background(), body(t, "url = \"https://vc/sdk\"\n"+src)); d.HasErrors() {
			t.Fatal(d)
		}
		if got := p.Capabilities().ExistingNetwork; got != want {
			t.Errorf("%q: existing network %v, want %v", src, got, want)
		}
	}
}
