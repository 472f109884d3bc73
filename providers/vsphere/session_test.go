package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestIPWaitCancelled: a Ctrl-C (or another pair's failure) during the
// wait for the guest's address is an error wrapping ctx's, and the VM is
// named for teardown — not a machine "created" with no address (govmomi's
// WaitForUpdatesEx returns nil when its context is cancelled).
func TestIPWaitCancelled(t *testing.T) {
	sim := vspheretest.Start(t)
	p := New()
	p.Getenv = sim.Getenv
	if d := p.Configure(context.Background(), body(t, `datacenter = "DC0"
cluster = "DC0_C0"
network = "VM Network"
ip_timeout = "30s"
extra_config = { "SET.guest.ipAddress" = "169.254.3.4" }`)); d.HasErrors() {
		t.Fatal(d)
	}
	defer p.Close(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	m := machine("cancel", "p", "server", vspheretest.FreeBSD, "freebsd")
	go func() {
		// Cancel once the VM is powered on and the wait has begun.
		for ctx.Err() == nil {
			for _, n := range sim.VMs() {
				if n == m.Name && sim.Calls("PowerOnVM_Task") > 0 {
					time.Sleep(300 * time.Millisecond)
					cancel()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	in, err := p.Create(ctx, m)
	cancel()
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "wait for the IP address of "+m.Name) {
		t.Fatalf("Create = %+v, %v; want context.Canceled naming the VM", providers.EndpointOf(in), err)
	}
	if in.ID == "" {
		t.Fatal("the VM is not named for teardown")
	}
	if err := p.Delete(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentPendingDeletes: destroying pending machines (name only)
// of one lab at once must not fail because another delete removed a VM
// or the folder between listing and reading (ManagedObjectNotFound).
func TestConcurrentPendingDeletes(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "")
	ctx := context.Background()
	owner := providers.Owner{Lab: "race", Workspace: testWS}
	for round := 0; round < 3; round++ {
		var pending []providers.Instance
		for i := 0; i < 6; i++ {
			m := machine("race", fmt.Sprintf("p%d", i), "server", vspheretest.FreeBSD, "freebsd")
			sim.PlantVM(t, FolderName(owner), m.Name, owner.Tag(m.Address))
			pending = append(pending, providers.Instance{Address: m.Address, Kind: "machine", Name: m.Name, Owner: owner})
		}
		var wg sync.WaitGroup
		errs := make([]error, len(pending))
		for i, in := range pending {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = p.Delete(ctx, in) }()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d: delete %s: %v", round, pending[i].Name, err)
			}
		}
		if left := labVMs(sim, "race"); len(left) != 0 {
			t.Errorf("round %d: left %v", round, left)
		}
	}
}
