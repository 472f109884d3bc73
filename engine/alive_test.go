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
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/results"
)

// stoppingProvider is a fake whose server stops when down is set.
type stoppingProvider struct {
	*fakeProvider
	mu   sync.Mutex
	down bool
}

func (s *stoppingProvider) Alive(_ context.Context, in providers.Instance) error {
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
	nic := providers.NIC{Model: "virtio", Queues: 2, Host: map[string]bool{"tso4": false}}
	tests := []struct {
		name    string
		nic     providers.NIC
		mtu     int
		wantNIC *results.NIC
	}{
		{"virtio, two queues, TSO off, jumbo link", nic, 9000, &results.NIC{Model: "virtio", Queues: 2, Host: map[string]bool{"tso4": false}}},
		{"the back end's own NIC", providers.NIC{}, 0, nil},
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
