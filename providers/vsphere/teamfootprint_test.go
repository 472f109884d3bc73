package vsphere

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestTeamFootprint: two runners of one team pointed at one vCenter (the
// govmomi simulator) compute the same team footprint for a VM on their
// own — one with user:password in GOVC_URL and the vCenter's name in
// capitals — naming the ESXi host it runs on now, and in shared-switch
// mode its network; no credential is in the name; a VM that moved names
// its new host; a VM without an id is an error.
func TestTeamFootprint(t *testing.T) {
	sim := vspheretest.Start(t)
	ref := sim.PlantVM(t, "tfp", "tfp-vm", "")
	host := vmHost(t, sim, ref)
	u, _ := url.Parse(sim.URL)
	vc := u.Hostname()
	network := simNetwork(t, sim)
	other := *u
	other.Host = strings.ToUpper(u.Host)
	other.User = url.UserPassword(sim.Username, sim.Password)
	runnerB := func(name string) string {
		if name == "GOVC_URL" {
			return other.String()
		}
		return sim.Getenv(name)
	}
	in := machine.Instance{Address: "pair.tfp.server", ID: ref, Attrs: map[string]string{"host": host}}
	tests := []struct{ name, block, want string }{
		{"own-switch", fmt.Sprintf("host = %q", pinned), "vsphere host " + vc + "/" + host},
		{"shared switch: the host and the network", fmt.Sprintf("host = %q\nlink_mode = \"shared-switch\"", pinned),
			"vsphere host " + vc + "/" + host + ", vsphere network " + vc + "/" + network},
		{"cluster (shared switch)", "", "vsphere host " + vc + "/" + host + ", vsphere network " + vc + "/" + network},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := configured(t, sim, tc.block)
			fa, err := a.TeamFootprint(context.Background(), in)
			if err != nil || fa.String() != tc.want {
				t.Fatalf("runner A: team footprint %q (%v), want %q", fa, err, tc.want)
			}
			b := New()
			b.Getenv = runnerB
			if d := b.Configure(context.Background(), body(t, baseBlock+tc.block+fmt.Sprintf("\nnetwork = %q\n", vspheretest.Network))); d.HasErrors() {
				t.Fatal(d)
			}
			defer b.Close(context.Background())
			fb, err := b.TeamFootprint(context.Background(), in)
			if err != nil || fb.String() != fa.String() {
				t.Fatalf("runner B: team footprint %q (%v), runner A's %q", fb, err, fa)
			}
			if strings.Contains(fb.String(), sim.Password) || strings.Contains(fb.String(), sim.Username+":") {
				t.Fatalf("team footprint %q carries the credentials", fb)
			}
		})
	}

	p := configured(t, sim, fmt.Sprintf("host = %q", pinned))
	if _, err := p.TeamFootprint(context.Background(), machine.Instance{Address: "pair.x.server"}); err == nil {
		t.Error("a VM without an id: no error")
	}
	to := relocate(t, sim, ref, host)
	fp, err := p.TeamFootprint(context.Background(), in)
	if want := "vsphere host " + vc + "/" + to; err != nil || fp.String() != want {
		t.Errorf("after a move: team footprint %q (%v), want %q", fp, err, want)
	}
}

// simNetwork is the moref of the simulator's Network.
func simNetwork(t *testing.T, sim *vspheretest.Sim) string {
	t.Helper()
	ctx := context.Background()
	f := find.NewFinder(sim.Client.Client, true)
	dc, err := f.Datacenter(ctx, vspheretest.Datacenter)
	if err != nil {
		t.Fatal(err)
	}
	f.SetDatacenter(dc)
	n, err := f.Network(ctx, vspheretest.Network)
	if err != nil {
		t.Fatal(err)
	}
	return n.Reference().Value
}

// relocate moves the VM ref to another host of the cluster than from and
// returns that host's moref.
func relocate(t *testing.T, sim *vspheretest.Sim, ref, from string) string {
	t.Helper()
	var to types.ManagedObjectReference
	for _, h := range sim.Model.Map().All("HostSystem") {
		if r := h.Reference(); r.Value != from && strings.HasPrefix(h.Entity().Name, "DC0_C0_") {
			to = r
			break
		}
	}
	vm := object.NewVirtualMachine(sim.Client.Client, types.ManagedObjectReference{Type: "VirtualMachine", Value: ref})
	task, err := vm.Relocate(context.Background(), types.VirtualMachineRelocateSpec{Host: &to}, types.VirtualMachineMovePriorityDefaultPriority)
	if err == nil {
		err = task.Wait(context.Background())
	}
	if err != nil || vmHost(t, sim, ref) != to.Value {
		t.Fatalf("move to %s: %v", to.Value, err)
	}
	return to.Value
}
