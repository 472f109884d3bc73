package vsphere

import (
	"context"
	"fmt"
	"testing"

	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/providertest"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestConformanceForeignObject runs the suite's ownership case on the
// simulator: a VM someone made by hand, in the lab's folder, under the
// name lab gives the pair's server.
func TestConformanceForeignObject(t *testing.T) {
	sim := vspheretest.Start(t)
	providertest.ForeignObject(t, providertest.Harness{
		Type:     TypeName,
		Provider: baseBlock + fmt.Sprintf("network = %q\n", vspheretest.Network),
		Template: fmt.Sprintf("  source = %q\n  os = \"freebsd\"\n  ssh { user = \"root\" }", vspheretest.FreeBSD),
		Pair:     "  vcpu = 1\n  memory = \"1GiB\"",
		LabID:    "cf",
		Setup: func(t *testing.T, pr providers.Provider) {
			p := pr.(*Provider)
			p.Getenv = sim.Getenv
			p.dial = func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
				return nopTransport{name}, nil
			}
		},
		Foreign: func(t *testing.T, g *plan.Group) (string, func() string) {
			m := g.Server
			ref := sim.PlantVM(t, FolderName(m.Owner()), m.Name, "made by hand")
			return m.Address, func() string { return describeVM(sim, ref) }
		},
	})
}

// describeVM is a VM's name, folder, power state and annotation as the
// simulator reports them; "" once it is gone.
func describeVM(sim *vspheretest.Sim, ref string) string {
	var vm mo.VirtualMachine
	r := types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}
	err := property.DefaultCollector(sim.Client.Client).RetrieveOne(context.Background(), r,
		[]string{"name", "parent", "runtime.powerState", "config.annotation"}, &vm)
	if err != nil || vm.Config == nil {
		return ""
	}
	parent := ""
	if vm.Parent != nil {
		parent = vm.Parent.Value
	}
	return fmt.Sprintf("%s in %s, %s, annotation %q", vm.Name, parent, vm.Runtime.PowerState, vm.Config.Annotation)
}
