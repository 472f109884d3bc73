package vsphere

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// vmHost is the moref of the host a VM runs on, as vCenter says.
func vmHost(t testing.TB, sim *vspheretest.Sim, ref string) string {
	t.Helper()
	var vm mo.VirtualMachine
	r := types.ManagedObjectReference{Type: "VirtualMachine", Value: ref}
	if err := sim.Client.PropertyCollector().RetrieveOne(context.Background(), r, []string{"runtime.host"}, &vm); err != nil || vm.Runtime.Host == nil {
		t.Fatalf("host of %s: %v", ref, err)
	}
	return vm.Runtime.Host.Value
}

// TestFootprint: a VM's footprint is its host, named with the vCenter,
// only in own-switch mode (a pinned host, a vSwitch without uplink) and
// only while it is on the host recorded at create; a shared switch, a VM
// that moved, or one without a recorded host is everything.
func TestFootprint(t *testing.T) {
	sim := vspheretest.Start(t)
	ref := sim.PlantVM(t, "fp", "fp-vm", "")
	host := vmHost(t, sim, ref)
	vc, _ := url.Parse(sim.URL)
	other := "host-nowhere"
	tests := []struct {
		name, block, recorded string
		move                  bool
		want                  string
	}{
		{name: "own-switch on its recorded host", block: fmt.Sprintf("host = %q", pinned), recorded: host,
			want: "vsphere host " + vc.Host + "/" + host},
		{name: "shared switch: its uplinks reach every host", block: fmt.Sprintf("host = %q\nlink_mode = \"shared-switch\"", pinned), recorded: host,
			want: "everything"},
		{name: "no pinned host (cluster, shared switch)", block: "", recorded: host, want: "everything"},
		{name: "not on the host recorded at create", block: fmt.Sprintf("host = %q", pinned), recorded: other, want: "everything"},
		{name: "no host recorded", block: fmt.Sprintf("host = %q", pinned), want: "everything"},
		{name: "moved to another host since create", block: fmt.Sprintf("host = %q", pinned), recorded: host, move: true, want: "everything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := configured(t, sim, tc.block)
			if tc.move {
				var to types.ManagedObjectReference
				for _, h := range sim.Model.Map().All("HostSystem") {
					if r := h.Reference(); r.Value != host && strings.HasPrefix(h.Entity().Name, "DC0_C0_") {
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
			}
			in := machine.Instance{Address: "pair.fp.server", ID: ref, Attrs: map[string]string{}}
			if tc.recorded != "" {
				in.Attrs["host"] = tc.recorded
			}
			fp, err := p.Footprint(context.Background(), in)
			if err != nil || fp.String() != tc.want {
				t.Errorf("footprint %q (%v), want %q", fp, err, tc.want)
			}
		})
	}
}

// sleepRunner is a benchmark that takes a second and measures nothing.
type sleepRunner struct{}

func (sleepRunner) Run(ctx context.Context, _, _ bench.Endpoint, _ bench.Params) (bench.Raw, error) {
	select {
	case <-time.After(time.Second):
		return bench.Raw{Client: "slept"}, nil
	case <-ctx.Done():
		return bench.Raw{}, ctx.Err()
	}
}
func (sleepRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 1e9}, nil
}

// pinnedLab is a lab of pairs pairs spread over hosts provider blocks
// h0 … (each pinning DC0_C0_Hk: own-switch mode), one run each.
func pinnedLab(labID string, hosts, pairs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lab %q {}\n", labID)
	for h := 0; h < hosts; h++ {
		fmt.Fprintf(&b, `provider "vsphere" "h%d" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H%d"
  network      = "VM Network"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
template "freebsd%d" {
  provider = provider.vsphere.h%d
  source   = "freebsd-14.2-tmpl"
  os       = "freebsd"
  ssh { user = "root" }
}
`, h, h, h, h)
	}
	var refs []string
	for i := 0; i < pairs; i++ {
		fmt.Fprintf(&b, "pair \"p%d\" {\n  template = template.freebsd%d\n  vcpu = 1\n}\n", i, i%hosts)
		refs = append(refs, fmt.Sprintf("pair.p%d", i))
	}
	fmt.Fprintf(&b, "experiment \"e\" {\n  pairs = [%s]\n  iperf3 { duration = \"1s\" }\n}\n", strings.Join(refs, ", "))
	return b.String()
}

// runsWindow is a view that notes when the first run was configured and
// the last result came.
type runsWindow struct {
	mu          sync.Mutex
	first, last time.Time
}

func (w *runsWindow) Event(ev engine.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev.Type {
	case engine.EvConfigure:
		if w.first.IsZero() {
			w.first = ev.Time
		}
	case engine.EvResult, engine.EvRunFailed:
		w.last = ev.Time
	}
}

// applyPinned applies pinnedLab on sim with runs runs at once and returns
// the wall time of the runs (first configure to last result), of the
// whole apply, and the records.
func applyPinned(b *testing.B, sim *vspheretest.Sim, macs *macList, labID string, runs int) (time.Duration, time.Duration, *memResults) {
	b.Helper()
	lab, p := loadLab(b, pinnedLab(labID, 4, 8))
	provs := configureBlocks(b, sim, lab, func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
		return macGuest{name: name, macs: macs}, nil
	})
	res := &memResults{}
	w := &runsWindow{}
	e := &engine.Engine{State: &state.State{Lineage: testLineage}, Store: memStore{}, Providers: provs,
		OS:      func(string) (guest.OS, error) { return okOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return sleepRunner{}, nil },
		Results: res, RunID: "r1", Lab: lab.Name, View: w, RunsAtOnce: runs}
	start := time.Now()
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		b.Fatal(err)
	}
	return w.last.Sub(w.first), time.Since(start), res
}

// BenchmarkRunsAtOnce is issue 26's measurement of pairs on disjoint hosts
// at the same time: 8 pairs on 4 pinned hosts of the simulator's cluster
// (own-switch mode, two pairs per host), one run each, a benchmark that
// sleeps 1 s, applied one run at a time and with -runs-at-once 4. The
// runs' wall time should fall to about ¼ (the busiest host's 2 runs of
// 8); target ≤ 0.35. It also checks that every record of the concurrent
// apply names its own pinned host and overlapped no run of that host. It
// prints both wall times (the runs, and the whole apply with provisioning
// and teardown), the ratio and the load average.
func BenchmarkRunsAtOnce(b *testing.B) {
	sim := vspheretest.StartHosts(b, 4)
	macs := &macList{}
	sim.OnPowerOn(func(on vspheretest.PoweredOn) {
		for pg, mac := range on.MACs {
			if strings.HasPrefix(pg, "lab-pg-") {
				macs.add(mac)
			}
		}
	})
	for i := 0; i < b.N; i++ {
		load := loadAvg()
		serial, serialApply, _ := applyPinned(b, sim, macs, fmt.Sprintf("ra1x%d", i), 1)
		conc, concApply, res := applyPinned(b, sim, macs, fmt.Sprintf("ra4x%d", i), 4)
		hosts := map[string]bool{}
		for _, rec := range res.recs {
			fp := strings.Join(rec.Provenance.Footprint, ",")
			if !strings.HasPrefix(fp, "vsphere host ") || strings.Contains(fp, ",") {
				b.Fatalf("record of %s: footprint %v, want its one pinned host", rec.Pair, rec.Provenance.Footprint)
			}
			hosts[fp] = true
			for _, o := range rec.Provenance.Overlapped {
				if strings.Join(o.Footprint, ",") == fp {
					b.Fatalf("record of %s overlapped %s on its own host %s", rec.Pair, o.Pair, fp)
				}
			}
		}
		if len(res.recs) != 8 || len(hosts) != 4 {
			b.Fatalf("%d records on %d hosts, want 8 on 4", len(res.recs), len(hosts))
		}
		ratio := conc.Seconds() / serial.Seconds()
		met := "MET"
		if ratio > 0.35 {
			met = "NOT met"
		}
		b.ReportMetric(ratio, "wall4/wall1")
		fmt.Printf("runs at once, 8 pairs on 4 pinned hosts, 1 s per run: runs %v serial, %v with -runs-at-once 4 (whole apply %v and %v); "+
			"wall(4)/wall(1) = %.2f (target <= 0.35, about 0.25: %s); load average before %s, now %s\n",
			serial.Round(time.Millisecond), conc.Round(time.Millisecond), serialApply.Round(time.Millisecond), concApply.Round(time.Millisecond),
			ratio, met, load, loadAvg())
	}
}
