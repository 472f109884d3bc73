package vsphere

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

func linkSpec(pair string, mtu int) providers.LinkSpec {
	return providers.LinkSpec{Address: "pair." + pair + ".link", LabID: "lnk", Workspace: testWS, Pair: pair, Name: "lnk-" + pair, MTU: mtu}
}

// TestLinkMTUOnPlacementOnly: the vSwitch MTU changes on the hosts
// machines may be placed on — the cluster's, or the pinned host — and on
// no other host of the datacenter carrying the port group (it used to
// change every host of Network.host).
func TestLinkMTUOnPlacementOnly(t *testing.T) {
	tests := []struct {
		name, block string
		changed     func(host string) bool
	}{
		{"cluster", "", func(h string) bool { return strings.HasPrefix(h, "DC0_C0_") }},
		{"pinned host", "link_mode = \"shared-switch\"\nhost = \"DC0_C0_H1\"", func(h string) bool { return h == "DC0_C0_H1" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := vspheretest.Start(t)
			p := configured(t, sim, tc.block)
			ctx := context.Background()
			link, err := p.Link(ctx, linkSpec("a", 9000))
			if err != nil {
				t.Fatal(err)
			}
			mtus := sim.HostMTUs()
			if len(mtus) < 4 {
				t.Fatalf("hosts %v", mtus)
			}
			for host, mtu := range mtus {
				if want := map[bool]int32{true: 9000, false: 0}[tc.changed(host)]; mtu != want {
					t.Errorf("%s: MTU %d, want %d", host, mtu, want)
				}
			}
			if err := p.Delete(ctx, link); err != nil {
				t.Fatal(err)
			}
			for host, mtu := range sim.HostMTUs() {
				if mtu != 0 && mtu != 1500 {
					t.Errorf("%s: MTU %d after delete", host, mtu)
				}
			}
		})
	}
}

// TestSharedSwitch: two pairs on one switch hold it together; deleting
// one leaves the MTU the other needs (it used to restore 1500 under a pair
// still at 9000); a third pair asking another MTU is refused; Read sees a
// switch whose MTU was changed behind lab's back.
func TestSharedSwitch(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "link_mode = \"shared-switch\"\nhost = \"DC0_C0_H0\"")
	ctx := context.Background()
	a, err := p.Link(ctx, linkSpec("a", 9000))
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Link(ctx, linkSpec("b", 9000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Link(ctx, linkSpec("c", 4000)); err == nil || !strings.Contains(err.Error(), "runs at MTU 9000 for") {
		t.Errorf("a third pair asking MTU 4000: %v", err)
	}
	if err := p.Delete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got := sim.HostMTUs()["DC0_C0_H0"]; got != 9000 {
		t.Fatalf("MTU %d after deleting one of two pairs, want 9000", got)
	}
	if _, ok, err := p.Read(ctx, b); !ok || err != nil {
		t.Errorf("Read(b) = %v, %v", ok, err)
	}
	sim.SetHostMTU("DC0_C0_H0", 1500)
	if _, ok, err := p.Read(ctx, b); ok || err != nil {
		t.Errorf("Read(b) after the MTU changed by hand = %v, %v; want false", ok, err)
	}
	sim.SetHostMTU("DC0_C0_H0", 9000)
	if err := p.Delete(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got := sim.HostMTUs()["DC0_C0_H0"]; got != 0 && got != 1500 {
		t.Errorf("MTU %d after deleting both pairs, want it restored", got)
	}
}

// TestOrphanLinkRestoresMTU: after state loss, List finds the links the
// switches still record and deleting them restores the MTU (destroy
// -orphans used to leave the switch at 9000, silently).
func TestOrphanLinkRestoresMTU(t *testing.T) {
	for _, network := range []string{vspheretest.Network, vspheretest.DVPortgroup} {
		t.Run(network, func(t *testing.T) {
			sim := vspheretest.Start(t)
			p := configured(t, sim, fmt.Sprintf("network = %q", network))
			ctx := context.Background()
			dvsBefore := sim.DVSMaxMTU()
			for _, pair := range []string{"a", "b"} {
				if _, err := p.Link(ctx, linkSpec(pair, 9000)); err != nil {
					t.Fatal(err)
				}
			}
			// The state is lost: only what vSphere records is left.
			other, err := p.List(ctx, machine.Owner{Lab: "lnk", Workspace: "ws000002"})
			if err != nil || len(other) != 0 {
				t.Errorf("List(other workspace) = %+v, %v", other, err)
			}
			found, err := p.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS})
			if err != nil || len(found) != 2 || found[0].Kind != "link" || found[0].Address != "pair.a.link" {
				t.Fatalf("List = %+v, %v", found, err)
			}
			for _, in := range found {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			for host, mtu := range sim.HostMTUs() {
				if mtu != 0 && mtu != 1500 {
					t.Errorf("%s: MTU %d after the orphan sweep", host, mtu)
				}
			}
			if got := sim.DVSMaxMTU(); got != dvsBefore && !(dvsBefore == 0 && got == 1500) {
				t.Errorf("DVS MaxMtu %d after the orphan sweep, was %d", got, dvsBefore)
			}
			if found, _ := p.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS}); len(found) != 0 {
				t.Errorf("List after the sweep = %+v", found)
			}
		})
	}
}

// TestMTUReadBack: a switch that accepts a MaxMtu change and keeps its old
// MTU (as the simulator's DVS does) is an error naming the switch, not a
// link recorded at 9000.
func TestMTUReadBack(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, fmt.Sprintf("network = %q", vspheretest.DVPortgroup))
	sim.IgnoreMaxMTU(true)
	in, err := p.Link(context.Background(), linkSpec("a", 9000))
	if err == nil || !strings.Contains(err.Error(), "accepted the change but the switch reports") {
		t.Fatalf("Link = %v", err)
	}
	sim.IgnoreMaxMTU(false)
	if err := p.Delete(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if found, _ := p.List(context.Background(), machine.Owner{Lab: "lnk", Workspace: testWS}); len(found) != 0 {
		t.Errorf("List after delete = %+v", found)
	}
}

// TestEarlierStateStillDestroyed: a state written before owner tags and
// switch records — a VM annotated "lab-id: <lab>" in folder lab-<lab>, a
// link that kept the previous MTU in its own attributes — is still
// destroyed and restored, by the exact lab id.
func TestEarlierStateStillDestroyed(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, `host = "DC0_C0_H0"`)
	ctx := context.Background()
	sim.SetHostMTU("DC0_C0_H0", 9000)
	old := machine.Owner{Lab: "old"}
	ref := sim.PlantVM(t, "lab-old", "old-p-s", "lab-id: old\nlab-address: pair.p.server\n")
	other := sim.PlantVM(t, "lab-old", "old-q-s", "lab-id: old2\nlab-address: pair.q.server\n")
	if err := p.Delete(ctx, machine.Instance{Address: "pair.p.server", Kind: "machine", Name: "old-p-s", Attrs: map[string]string{"lab_id": "old"}}); err != nil {
		t.Fatal(err)
	}
	if sim.Exists(ref) {
		t.Error("VM of the earlier state left")
	}
	if err := p.Delete(ctx, machine.Instance{Address: "pair.q.server", Kind: "machine", Name: "old-q-s", Owner: old, Attrs: map[string]string{"lab_id": "old"}}); err == nil || !sim.Exists(other) {
		t.Errorf("another lab's VM: err %v, kept %v", err, sim.Exists(other))
	}
	hostRef := sim.HostRef("DC0_C0_H0")
	link := machine.Instance{Address: "pair.p.link", Kind: "link", Name: "VM Network", Attrs: map[string]string{
		"lab_id": "old", "network": vspheretest.Network, "switch": "vswitch", "mtu": "9000", "prev_mtu": hostRef + "=1500"}}
	if _, ok, _ := p.Read(ctx, link); ok {
		t.Error("Read of an earlier link = true; want it made again")
	}
	if err := p.Delete(ctx, link); err != nil {
		t.Fatal(err)
	}
	if got := sim.HostMTUs()["DC0_C0_H0"]; got != 1500 {
		t.Errorf("MTU %d after deleting the earlier link, want 1500", got)
	}
}

// TestSharedSwitchInterruptAfterRecord: lab stops between writing a
// shared vSwitch's MTU record (the "tag", written first) and changing the
// switch's MTU. A later lab with no state of the link finds it by that
// record and deleting it leaves every host's network as it was (issue 20,
// section 1: the window between create and tag, for a link that changes
// a switch lab does not own).
func TestSharedSwitchInterruptAfterRecord(t *testing.T) {
	sim := vspheretest.Start(t)
	ctx := context.Background()
	before := sim.NetworkInfo(t)
	p := configured(t, sim, "")
	clear := sim.Fail("UpdateVirtualSwitch", "HostNetworkSystem", "*", 1)
	if _, err := p.Link(ctx, linkSpec("a", 9000)); err == nil || !strings.Contains(err.Error(), "injected UpdateVirtualSwitch fault") {
		t.Fatalf("Link = %v, want the injected UpdateVirtualSwitch fault", err)
	}
	clear()
	next := configured(t, sim, "") // a new lab process: no state of the link
	found, err := next.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS})
	if err != nil || len(found) != 1 || found[0].Kind != "link" || found[0].Address != "pair.a.link" {
		t.Fatalf("List after the interrupt = %+v, %v", found, err)
	}
	if err := next.Delete(ctx, found[0]); err != nil {
		t.Fatal(err)
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("network after the sweep differs:\nbefore %+v\nafter  %+v", before, after)
	}
	if found, _ := next.List(ctx, machine.Owner{Lab: "lnk", Workspace: testWS}); len(found) != 0 {
		t.Errorf("List after the sweep = %+v", found)
	}
}
