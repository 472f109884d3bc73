package vsphere

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// These tests run engine.Engine with this provider against the simulator;
// only the guest side is stubbed (no SSH servers behind simulated VMs).

const engineLab = `
lab "%s" {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  network      = "VM Network"
  ip_timeout   = "20s"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
  ssh { user = "root" }
}
pair "fbsd" {
  template = template.freebsd
  vcpu     = 1
  memory   = "1GiB"
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}
experiment "lro" {
  pairs  = [pair.fbsd]
  matrix = { lro = [false, true] }
  guest { lro = matrix.lro }
  iperf3 { duration = "1s" }
}
`

type nopTransport struct{ name string }

func (n nopTransport) Run(context.Context, guest.Cmd) (guest.Result, error) {
	return guest.Result{}, nil
}
func (n nopTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (n nopTransport) Name() string                                    { return n.name }
func (n nopTransport) Close() error                                    { return nil }

type okOS struct{}

func (okOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (okOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	o := guest.Observed{Interface: iface, MTU: s.MTU, Kernel: "FreeBSD 14.2", Offloads: map[string]string{}}
	for k, v := range s.Offloads {
		o.Offloads[k] = map[bool]string{true: "on", false: "off"}[v]
	}
	return o, nil
}

type okRunner struct{}

func (okRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	return bench.Raw{Client: "ok"}, nil
}
func (okRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 8.6e9}, nil
}

type memStore struct{}

func (memStore) Save(*state.State) error { return nil }

type memResults struct {
	mu   sync.Mutex
	recs []results.Record
}

func (m *memResults) Write(r results.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return nil
}

// loadLab writes src into a lab directory and plans it on empty state.
func loadLab(t testing.TB, src string) (*spec.Lab, *plan.Plan) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := spec.Load(dir, spec.Options{KnownProviders: providers.Names()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := plan.New(lab, &state.State{Lineage: testLineage}, plan.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return lab, p
}

// newEngine configures the lab's vsphere provider against sim; guests are
// reached through a stub transport.
func newEngine(t testing.TB, sim *vspheretest.Sim, lab *spec.Lab) (*engine.Engine, *Provider, *memResults) {
	t.Helper()
	p := New()
	p.Getenv = sim.Getenv
	p.dial = func(_ context.Context, name string, c ssh.Config) (guest.Transport, error) {
		if c.Host == "" || c.User != "root" {
			t.Errorf("dial %s with %+v", name, c)
		}
		return nopTransport{name}, nil
	}
	if d := p.Configure(context.Background(), lab.Providers["vsphere.sim"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	res := &memResults{}
	e := &engine.Engine{State: &state.State{Lineage: testLineage}, Store: memStore{}, Providers: map[string]providers.Provider{"vsphere.sim": p},
		OS:      func(string) (guest.OS, error) { return okOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return okRunner{}, nil },
		Results: res, RunID: "r1", Lab: lab.Name}
	return e, p, res
}

// configureBlocks configures a provider for each of lab's provider
// blocks against sim (the blocks of one lab pinning other hosts), its
// guests reached through dial.
func configureBlocks(t testing.TB, sim *vspheretest.Sim, lab *spec.Lab, dial providers.DialFunc) map[string]providers.Provider {
	t.Helper()
	provs := map[string]providers.Provider{}
	for key, pb := range lab.Providers {
		prov := New()
		prov.Getenv, prov.dial = sim.Getenv, dial
		if d := prov.Configure(context.Background(), pb.Body); d.HasErrors() {
			t.Fatal(d)
		}
		t.Cleanup(func() { prov.Close(context.Background()) })
		provs[key] = prov
	}
	return provs
}

// testLineage is the tests' state lineage; its workspace is testWS.
const testLineage = testWS + "-0000-4000-8000-000000000000"

func labVMs(sim *vspheretest.Sim, labID string) []string {
	var out []string
	for _, n := range sim.VMs() {
		if strings.HasPrefix(n, labID+"-") {
			out = append(out, n)
		}
	}
	return out
}

func TestEngineApplyOnSimulator(t *testing.T) {
	sim := vspheretest.Start(t)
	lab, p := loadLab(t, strings.ReplaceAll(engineLab, "%s", "eok"))
	e, _, res := newEngine(t, sim, lab)
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(res.recs) != 2 || res.recs[0].HostCPU == nil || !strings.HasPrefix(res.recs[0].HostCPU.Server.Source, "vsphere:") {
		t.Errorf("records %d, host CPU %+v", len(res.recs), res.recs[0].HostCPU)
	}
	for _, r := range res.recs {
		for _, end := range []string{"server", "client"} {
			if hs := r.Provenance.HostSettings[end]; !strings.HasPrefix(hs, "host-") || !strings.Contains(hs, ": Net.Vmxnet3HwLRO=1 Net.Vmxnet3SwLRO=1") {
				t.Errorf("record %s: %s host settings %q", r.CellKey, end, hs)
			}
		}
	}
	if left := labVMs(sim, "eok"); len(left) != 0 || len(e.State.Resources) != 0 || sim.Folder("lab-eok-"+testWS) {
		t.Errorf("left: VMs %v, state %v, folder %v", left, e.State.Resources, sim.Folder("lab-eok-"+testWS))
	}
}

// TestEngineFaults injects vSphere faults into CloneVM_Task, PowerOnVM_Task
// and Destroy_Task and checks what the engine leaves: an error naming the
// VM and the operation, no VM left (or, when the destroy itself fails, the
// VMs in state as tainted, removed by the next destroy).
func TestEngineFaults(t *testing.T) {
	tests := []struct {
		name, method, objType, object string
		wantErr                       []string
		wantTainted                   int
	}{
		{name: "clone", method: "CloneVM_Task", objType: "VirtualMachine", object: "freebsd-14.2-tmpl",
			wantErr: []string{"from freebsd-14.2-tmpl", ": clone: ", "injected CloneVM_Task fault"}},
		{name: "poweron", method: "PowerOnVM_Task", objType: "VirtualMachine", object: "*",
			wantErr: []string{": power on: ", "injected PowerOnVM_Task fault"}},
		{name: "destroy", method: "Destroy_Task", objType: "VirtualMachine", object: "*",
			wantErr: []string{"destroy ", "injected Destroy_Task fault"}, wantTainted: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := vspheretest.Start(t)
			labID := "f" + tc.name
			lab, p := loadLab(t, strings.ReplaceAll(engineLab, "%s", labID))
			e, _, _ := newEngine(t, sim, lab)
			clear := sim.Fail(tc.method, tc.objType, tc.object, 0)
			_, err := e.Apply(context.Background(), context.Background(), p)
			if err == nil {
				t.Fatal("apply succeeded")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), labID+"-fbsd-") {
				t.Errorf("error %q does not name the VM", err)
			}
			tainted := 0
			for _, r := range e.State.Resources {
				if r.Kind == "machine" && r.Status == state.Tainted {
					tainted++
				}
			}
			if tainted != tc.wantTainted {
				t.Errorf("%d tainted machines in state, want %d: %+v", tainted, tc.wantTainted, e.State.Resources)
			}
			if left := labVMs(sim, labID); len(left) != tc.wantTainted {
				t.Errorf("VMs left after apply: %v", left)
			}
			clear()
			if err := e.Destroy(context.Background(), machine.Owner{Lab: labID, Workspace: testWS}, false); err != nil {
				t.Fatal(err)
			}
			if left := labVMs(sim, labID); len(left) != 0 || len(e.State.Resources) != 0 || sim.Folder("lab-"+labID+"-"+testWS) {
				t.Errorf("after destroy: VMs %v, state %v, folder %v", left, e.State.Resources, sim.Folder("lab-"+labID+"-"+testWS))
			}
			for sw, mtu := range sim.VSwitchMTUs() {
				if strings.HasSuffix(sw, "/vSwitch0") && mtu == 9000 {
					t.Errorf("%s still at MTU 9000", sw)
				}
			}
		})
	}
}

// TestOrphansFoundByTag: VMs whose state was lost are found by List and
// removed by destroy -orphans, and the switch MTU the lost links set is
// restored from the record on the switch.
func TestOrphansFoundByTag(t *testing.T) {
	sim := vspheretest.Start(t)
	lab, p := loadLab(t, strings.ReplaceAll(engineLab, "%s", "orph"))
	e, _, _ := newEngine(t, sim, lab)
	e.Keep = true
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if n := len(labVMs(sim, "orph")); n != 2 {
		t.Fatalf("%d VMs", n)
	}
	e.State = &state.State{Lineage: testLineage} // state lost
	if err := e.Destroy(context.Background(), machine.Owner{Lab: "orph", Workspace: testWS}, true); err != nil {
		t.Fatal(err)
	}
	if left := labVMs(sim, "orph"); len(left) != 0 || sim.Folder("lab-orph-"+testWS) {
		t.Errorf("orphans left: %v", left)
	}
	for host, mtu := range sim.HostMTUs() {
		if mtu != 0 && mtu != 1500 {
			t.Errorf("%s: switch MTU %d after destroy -orphans, want it restored", host, mtu)
		}
	}
}
