package vsphere

import (
	"context"
	"testing"

	"github.com/vmware/govmomi/find"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

const seedDir = "../../examples/vmxnet3-lro-mtu"

// TestExampleSeed000 validates and plans examples/vmxnet3-lro-mtu with the
// provider configured against the simulator: 12 cells on each of 2 pairs are 4
// clones (the matrix varies only guest settings), the FreeBSD vCPU sweep
// (4 and 8 vCPU) adds two more pairs of clones, and the templates the lab
// names resolve in the inventory.
func TestExampleSeed000(t *testing.T) {
	sim := vspheretest.Start(t)
	lab, diags := spec.Load(seedDir, spec.Options{KnownProviders: providers.Names()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := New()
	p.Getenv = sim.Getenv
	ctx := providers.WithEvalContext(context.Background(), lab.EvalContext())
	if d := p.Configure(ctx, lab.Providers["vsphere.dc"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	defer p.Close(context.Background())
	if p.cfg.linkMode() != OwnSwitch {
		t.Errorf("link mode %q, want %q", p.cfg.linkMode(), OwnSwitch)
	}
	pl, diags := plan.New(lab, &state.State{}, plan.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	creates := 0
	for _, a := range pl.Actions {
		if a.Kind == "machine" && a.Op == plan.OpCreate {
			creates++
		}
	}
	// lro-mtu: 2 pairs x 12 cells x 3 repeats; fbsd-vcpu: 3 vCPU counts x
	// 3 repeats (1 vCPU on lro-mtu's machines, 4 and 8 on their own);
	// deb-rings: the Debian pair's 3 ring sizes x 3 repeats, on the same
	// machines.
	if want := 2*12*3 + 3*3 + 3*3; len(pl.Groups) != 4 || creates != 8 || len(pl.Runs()) != want {
		t.Errorf("%d groups, %d clones, %d runs; want 4, 8, %d", len(pl.Groups), creates, len(pl.Runs()), want)
	}
	c, env, err := p.session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f := find.NewFinder(c.Client, true).SetDatacenter(env.dc)
	for _, tm := range lab.Templates {
		if _, err := f.VirtualMachine(context.Background(), tm.Source); err != nil {
			t.Errorf("template %s: %v", tm.Name, err)
		}
	}
	for _, g := range pl.Groups {
		if g.Server.Template.SSH == nil || g.Server.Template.SSH.User != "root" || g.Link.MTU != 9000 || g.Server.NIC.Model != "vmxnet3" {
			t.Errorf("group %s: %+v", g.Address, g.Server)
		}
	}
}
