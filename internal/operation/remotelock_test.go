package operation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/pgcluster"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestTeamLockRemoteFootprints (issue 34, section 3): two runners of one
// team (one real PostgreSQL, each its own host lock directory and its own
// vSphere provider on one vCenter, the govmomi simulator) serialise their
// runs on one ESXi host — the waiter told which runner, lab and pid
// holds it — while a run on another host goes ahead, unless both are in
// shared-switch mode on one network (its switch carries both); a remote run takes
// no file lock, so a local run of this machine is not kept waiting by it.
func TestTeamLockRemoteFootprints(t *testing.T) {
	c := pgcluster.Start(t)
	sim := vspheretest.Start(t)
	vm1 := sim.PlantVM(t, "team", "team-vm1", "")
	vm2 := sim.PlantVM(t, "team", "team-vm2", "")
	h1, h2 := simHostOf(t, sim, vm1), simHostOf(t, sim, vm2)
	if h1 == h2 {
		h2 = moveToOtherHost(t, sim, vm2, h1)
	}
	lockDir := t.TempDir() // shared: only the team lock may keep the runners apart
	runner := func(name string) (*Operation, *bytes.Buffer) {
		var stderr bytes.Buffer
		return &Operation{Stderr: &stderr, Env: []string{"LAB_ARCHIVE=" + c.URL, "LAB_RUNNER=" + name, "LAB_HOST_LOCK_DIR=" + lockDir}}, &stderr
	}
	scope := func(p providers.Provider, vm string) engine.LockScope {
		in := machine.Instance{Address: "pair.p.server", ID: vm}
		return engine.LockScope{Team: func(ctx context.Context) (providers.Footprint, error) {
			return p.(interface {
				TeamFootprint(context.Context, machine.Instance) (providers.Footprint, error)
			}).TeamFootprint(ctx, in)
		}}
	}
	blocked := func(ctx context.Context, o *Operation, lab string, sc engine.LockScope) error {
		short, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		release, err := o.HostLock(lab)(short, sc)
		if err == nil {
			release()
			return errors.New("not kept waiting")
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
	a, _ := runner("runner-a")
	b, bErr := runner("runner-b")
	sharedA, sharedB := simProvider(t, sim, ""), simProvider(t, sim, "") // each runner its own session
	ownB := simProvider(t, sim, `host = "DC0_C0_H0"`)
	ctx, stop := context.WithTimeout(context.Background(), 2*time.Minute) // what should be free is
	defer stop()

	// A benchmarks on vm1's host in shared-switch mode: the host and the network.
	releaseA, err := a.HostLock("lab-a")(ctx, scope(sharedA, vm1))
	if err != nil {
		t.Fatal(err)
	}
	if err := blocked(ctx, b, "lab-b", scope(ownB, vm1)); err != nil {
		t.Fatalf("runner B on the ESXi host runner A benchmarks on: %v", err)
	}
	want := fmt.Sprintf("on vsphere host 127.0.0.1/%s (", h1)
	holder := fmt.Sprintf("runner %q, lab %q, pid %d", "runner-a", "lab-a", os.Getpid())
	if msg := bErr.String(); !strings.Contains(msg, "Waiting for the team's benchmark lock "+want) || !strings.Contains(msg, holder) {
		t.Fatalf("runner B's wait does not name the host %q and the holder %q:\n%s", want, holder, msg)
	}
	other, err := b.HostLock("lab-b")(ctx, scope(ownB, vm2))
	if err != nil {
		t.Fatalf("runner B on another ESXi host (%s, own switch) while A holds %s: %v", h2, h1, err)
	}
	other()
	if err := blocked(ctx, b, "lab-b", scope(sharedB, vm2)); err != nil {
		t.Fatalf("runner B in shared-switch mode on another host, A's shared-switch run on the network's switch: %v", err)
	}
	local, err := b.HostLock("lab-b")(ctx, engine.LockScope{ThisHost: true,
		Team: func(context.Context) (providers.Footprint, error) {
			return providers.FootprintOf(providers.ThisMachine), nil
		}})
	if err != nil {
		t.Fatalf("a local run while another runner benchmarks on an ESXi host: %v", err)
	}
	local()

	releaseA()
	after, err := b.HostLock("lab-b")(ctx, scope(sharedB, vm1))
	if err != nil {
		t.Fatalf("runner B after A released the host: %v", err)
	}
	after()
}

// simProvider is a vSphere provider on sim, as one runner configures it,
// with the extra attributes (a pinned host: own-switch mode; none: a
// cluster, shared-switch mode on the simulator's network).
func simProvider(t *testing.T, sim *vspheretest.Sim, extra string) providers.Provider {
	t.Helper()
	src := fmt.Sprintf("datacenter = %q\ncluster = %q\nnetwork = %q\n%s\n", vspheretest.Datacenter, vspheretest.Cluster, vspheretest.Network, extra)
	f, d := hclsyntax.ParseConfig([]byte(src), "provider.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	p := vsphere.New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), f.Body); d.HasErrors() {
		t.Fatal(d)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// simHostOf is the moref of the host the simulator runs VM ref on.
func simHostOf(t *testing.T, sim *vspheretest.Sim, ref string) string {
	t.Helper()
	var vm mo.VirtualMachine
	r := types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}
	if err := sim.Client.PropertyCollector().RetrieveOne(context.Background(), r, []string{"runtime.host"}, &vm); err != nil || vm.Runtime.Host == nil {
		t.Fatalf("host of %s: %v", ref, err)
	}
	return vm.Runtime.Host.Value
}

// moveToOtherHost relocates VM ref to a host of the cluster other than
// from, returning its moref.
func moveToOtherHost(t *testing.T, sim *vspheretest.Sim, ref, from string) string {
	t.Helper()
	var to types.ManagedObjectReference
	for _, h := range sim.Model.Map().All("HostSystem") {
		if r := h.Reference(); r.Value != from && strings.HasPrefix(h.Entity().Name, vspheretest.Cluster+"_") {
			to = r
			break
		}
	}
	vm := object.NewVirtualMachine(sim.Client.Client, types.ManagedObjectReference{Type: "VirtualMachine", Value: ref})
	task, err := vm.Relocate(context.Background(), types.VirtualMachineRelocateSpec{Host: &to}, types.VirtualMachineMovePriorityDefaultPriority)
	if err == nil {
		err = task.Wait(context.Background())
	}
	if err != nil || simHostOf(t, sim, ref) != to.Value {
		t.Fatalf("move %s to %s: %v", ref, to.Value, err)
	}
	return to.Value
}

// TestTeamResources: the team lock's resources are the run's footprint
// with this machine named by its machine-id (two runners' "this machine"
// are two machines); a footprint a back end cannot name is everything
// (no resources), said once per apply with the reason.
func TestTeamResources(t *testing.T) {
	var stderr bytes.Buffer
	o := &Operation{Stderr: &stderr}
	var warned atomic.Bool
	named := engine.LockScope{Team: func(context.Context) (providers.Footprint, error) {
		return providers.FootprintOf(providers.ThisMachine, "libvirt host kvm1"), nil
	}}
	got := o.teamResources(context.Background(), named, &warned)
	if want := []string{thisMachineResource(), "libvirt host kvm1"}; !slices.Equal(got, want) || strings.HasSuffix(want[0], providers.ThisMachine) {
		t.Errorf("resources %q, want %q", got, want)
	}
	unknown := engine.LockScope{Team: func(context.Context) (providers.Footprint, error) {
		return providers.Footprint{}, errors.New("pair.p.client: its back end names no footprint")
	}}
	for i := 0; i < 2; i++ {
		if got := o.teamResources(context.Background(), unknown, &warned); got != nil {
			t.Errorf("an unnamed footprint: resources %q, want none (everything)", got)
		}
	}
	if n := strings.Count(stderr.String(), "pair.p.client: its back end names no footprint"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, stderr.String())
	}
}
