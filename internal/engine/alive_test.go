package engine

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/machine"
)

// stoppingProvider is a fake whose server stops when down is set.
type stoppingProvider struct {
	*fakeProvider
	mu   sync.Mutex
	down bool
}

func (s *stoppingProvider) Alive(_ context.Context, in machine.Instance) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down && in.Address == "pair.p.server" {
		return errors.New("domain t-p-s shut off")
	}
	return nil
}

// vanishingRunner stops the server during its second benchmark and then
// hangs like a benchmark whose peer is gone, until its context ends.
type vanishingRunner struct {
	fakeRunner
	prov  *stoppingProvider
	calls int
}

func (r *vanishingRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	r.calls++
	if r.calls != 2 {
		return r.fakeRunner.Run(ctx, s, c, p)
	}
	r.prov.mu.Lock()
	r.prov.down = true
	r.prov.mu.Unlock()
	select {
	case <-ctx.Done():
		return bench.Raw{}, ctx.Err()
	case <-time.After(10 * time.Second):
		return bench.Raw{}, errors.New("the run was not ended when its server stopped")
	}
}

func TestMachineStoppedDuringRun(t *testing.T) {
	defer func(d time.Duration) { aliveEvery = d }(aliveEvery)
	aliveEvery = 10 * time.Millisecond
	fake := newFake()
	prov := &stoppingProvider{fakeProvider: fake}
	e, res, _ := newEngine(fake, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = prov
	runner := &vanishingRunner{prov: prov}
	e.Runner = func(string) (bench.Runner, error) { return runner, nil }
	start := time.Now()
	_, err := e.Apply(context.Background(), context.Background(), testPlan(3, 1500))
	if err == nil || !strings.Contains(err.Error(), "2 of 3 runs failed") {
		t.Errorf("err = %v, want 2 of 3 runs failed", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("apply took %v: the stopped machine was not noticed", took)
	}
	want := []string{"", "domain t-p-s shut off during run 2", "domain t-p-s shut off during run 3"}
	if len(res.recs) != len(want) {
		t.Fatalf("%d records, want %d", len(res.recs), len(want))
	}
	for i, r := range res.recs {
		if r.Error != want[i] {
			t.Errorf("run %d: error %q, want %q", i+1, r.Error, want[i])
		}
	}
	if len(fake.exists) != 0 {
		t.Errorf("left after teardown: %v", fake.exists)
	}
}

func TestRecordHardware(t *testing.T) {
	nic := machine.NIC{Model: "virtio", Queues: 2, Host: map[string]bool{"tso4": false}}
	tests := []struct {
		name    string
		nic     machine.NIC
		mtu     int
		wantNIC *results.NIC
	}{
		{"virtio, two queues, TSO off, jumbo link", nic, 9000, &results.NIC{Model: "virtio", Queues: 2, Host: map[string]bool{"tso4": false}}},
		{"the back end's own NIC", machine.NIC{}, 0, nil},
	}
	for _, tc := range tests {
		g := testPlan(1, 1500).Groups[0]
		g.Server.NIC, g.Link.MTU = tc.nic, tc.mtu
		g.Server.VCPU, g.Server.MemoryMiB = 2, 768
		var rec results.Record
		recordHardware(&rec, g)
		if rec.Intent.VCPU != 2 || rec.Intent.MemoryMiB != 768 {
			t.Errorf("%s: %d vCPU %d MiB, want the pair's 2 and 768", tc.name, rec.Intent.VCPU, rec.Intent.MemoryMiB)
		}
		if !reflect.DeepEqual(rec.Intent.NIC, tc.wantNIC) || rec.Intent.LinkMTU != tc.mtu {
			t.Errorf("%s: NIC %+v link MTU %d, want %+v %d", tc.name, rec.Intent.NIC, rec.Intent.LinkMTU, tc.wantNIC, tc.mtu)
		}
	}
}

// deafProvider's machines answer like SSH to a guest that is gone once the
// server is down: a command then ignores its context and returns only when
// its transport is closed (the session close and the remote kill of a real
// SSH transport each wait out their bound).
type deafProvider struct{ *stoppingProvider }

func (d deafProvider) Connect(_ context.Context, in machine.Instance) (guest.Transport, error) {
	return &deafTransport{nopTransport: nopTransport{in.Address}, prov: d.stoppingProvider, closed: make(chan struct{})}, nil
}

type deafTransport struct {
	nopTransport
	prov   *stoppingProvider
	once   sync.Once
	closed chan struct{}
}

func (d *deafTransport) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	d.prov.mu.Lock()
	deaf := d.prov.down && d.name == "pair.p.server"
	d.prov.mu.Unlock()
	if !deaf {
		return d.nopTransport.Run(ctx, c)
	}
	select {
	case <-d.closed:
		return guest.Result{}, errors.New("connection lost")
	case <-time.After(10 * time.Second):
		return guest.Result{}, errors.New("a command on the stopped machine waited 10 s: its transport was not closed")
	}
}

func (d *deafTransport) Close() error {
	d.once.Do(func() { close(d.closed) })
	return nil
}

// deafRunner stops the server during its second benchmark and then runs a
// command on it, as iperf3's client-side wait and server kill do.
type deafRunner struct {
	fakeRunner
	prov  *stoppingProvider
	calls int
}

func (r *deafRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	r.calls++
	if r.calls != 2 {
		return r.fakeRunner.Run(ctx, s, c, p)
	}
	r.prov.mu.Lock()
	r.prov.down = true
	r.prov.mu.Unlock()
	_, err := s.T.Run(ctx, guest.Cmd{Argv: []string{"iperf3", "-s"}})
	return bench.Raw{}, err
}

// TestStoppedMachineTransportClosed: a machine found down has its
// transport closed, so a command stuck on it ends at once and the run
// fails within the watcher's interval, naming the machine.
func TestStoppedMachineTransportClosed(t *testing.T) {
	defer func(d time.Duration) { aliveEvery = d }(aliveEvery)
	aliveEvery = 10 * time.Millisecond
	fake := newFake()
	prov := &stoppingProvider{fakeProvider: fake}
	e, res, _ := newEngine(fake, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = deafProvider{prov}
	runner := &deafRunner{prov: prov}
	e.Runner = func(string) (bench.Runner, error) { return runner, nil }
	start := time.Now()
	_, err := e.Apply(context.Background(), context.Background(), testPlan(2, 1500))
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 runs failed") {
		t.Errorf("err = %v, want 1 of 2 runs failed", err)
	}
	if took > 2*time.Second {
		t.Errorf("apply took %v: the command on the stopped machine was not ended", took)
	}
	if len(res.recs) != 2 || res.recs[1].Error != "domain t-p-s shut off during run 2" {
		t.Fatalf("records %+v, want run 2 failed naming the stopped domain", res.recs)
	}
}

// meteredStopping meters CPU like libvirt does once a domain stopped: its
// counter reads 0, so a measurement across the stop fails.
type meteredStopping struct{ *stoppingProvider }

func (m meteredStopping) MeterCPU(_ context.Context, in machine.Instance) (func(context.Context) (machine.HostCPU, error), error) {
	return func(context.Context) (machine.HostCPU, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.down {
			return machine.HostCPU{}, errors.New("cpu time went backwards (5 → 0 ns): the domain restarted")
		}
		return machine.HostCPU{BusyPct: 42, Source: "fake"}, nil
	}, nil
}

// TestStoppedMachineNoCPUWarning: a run cut short by a stopped machine
// fails with that reason alone; no hypervisor CPU warning about a counter
// that ended with the machine.
func TestStoppedMachineNoCPUWarning(t *testing.T) {
	defer func(d time.Duration) { aliveEvery = d }(aliveEvery)
	aliveEvery = 10 * time.Millisecond
	fake := newFake()
	prov := &stoppingProvider{fakeProvider: fake}
	e, res, events := newEngine(fake, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = meteredStopping{prov}
	runner := &vanishingRunner{prov: prov}
	e.Runner = func(string) (bench.Runner, error) { return runner, nil }
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(2, 1500)); err == nil {
		t.Fatal("apply succeeded with its server stopped")
	}
	for _, ev := range *events {
		if ev.Type == EvWarning && strings.Contains(ev.Message, "hypervisor CPU") {
			t.Errorf("warning %q for a run cut short by a stopped machine", ev.Message)
		}
	}
	if len(res.recs) != 2 || res.recs[0].HostCPU == nil || res.recs[1].HostCPU != nil {
		t.Errorf("host CPU: want run 1 measured and run 2 (cut short) not: %+v", res.recs)
	}
}
