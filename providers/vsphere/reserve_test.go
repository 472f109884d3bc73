package vsphere

import (
	"context"
	"strings"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestReservationsDiagnostics: bad values are refused at their line.
func TestReservationsDiagnostics(t *testing.T) {
	tests := []struct{ src, want string }{
		{`cpu_reservation_mhz = -1`, "provider.hcl:2,23-25: Invalid cpu_reservation_mhz"},
		{`latency_sensitivity = "extreme"`, "provider.hcl:2,23-32: Invalid latency_sensitivity"},
		{`latency_sensitivity = "high"`, "provider.hcl:2,23-29: High latency sensitivity needs reserved memory"},
		{"latency_sensitivity = \"high\"\nreserve_memory = true\ncpu_reservation_mhz = 2000", ""},
	}
	for _, tc := range tests {
		p := New()
		p.Getenv = func(string) string { return "" }
		d := p.Configure(context.Background(), body(t, "url = \"https://vc/sdk\"\n"+tc.src))
		if got := d.Error(); tc.want == "" && d.HasErrors() || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: diags %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestReservations: the clone carries the CPU and memory reservations and
// the latency sensitivity asked, as vCenter reports them, and they are in
// the machine's host settings (every result's provenance).
func TestReservations(t *testing.T) {
	sim := vspheretest.Start(t)
	p := configured(t, sim, "cpu_reservation_mhz = 2000\nreserve_memory = true\nlatency_sensitivity = \"high\"")
	ctx := context.Background()
	in, err := p.Create(ctx, testMachine("rsv", "p", "server", vspheretest.Debian, "linux"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Delete(ctx, in); err != nil {
			t.Error(err)
		}
	})
	var o mo.VirtualMachine
	vm := object.NewVirtualMachine(sim.Client.Client, types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID})
	if err := vm.Properties(ctx, vm.Reference(), []string{"config"}, &o); err != nil {
		t.Fatal(err)
	}
	c := o.Config
	if c.CpuAllocation == nil || c.CpuAllocation.Reservation == nil || *c.CpuAllocation.Reservation != 2000 {
		t.Errorf("CPU allocation %+v", c.CpuAllocation)
	}
	if c.MemoryReservationLockedToMax == nil || !*c.MemoryReservationLockedToMax {
		t.Errorf("memoryReservationLockedToMax %v", c.MemoryReservationLockedToMax)
	}
	if c.LatencySensitivity == nil || c.LatencySensitivity.Level != "high" {
		t.Errorf("latency sensitivity %+v", c.LatencySensitivity)
	}
	if hs := p.HostSettings(in); !strings.HasSuffix(hs, "; cpu_reservation_mhz=2000 reserve_memory=true latency_sensitivity=high") {
		t.Errorf("host settings %q", hs)
	}
}
