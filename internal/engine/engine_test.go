package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/internal/verdicts"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// fakeProvider records what exists; fail makes one operation fail.
type fakeProvider struct {
	mu     sync.Mutex
	exists map[string]bool
	fail   map[string]error // "create:pair.p.server", "delete:pair.p.link"
	log    []string
}

func newFake() *fakeProvider {
	return &fakeProvider{exists: map[string]bool{}, fail: map[string]error{}}
}

func (f *fakeProvider) op(name, addr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, name+" "+addr)
	if err := f.fail[name+":"+addr]; err != nil {
		return err
	}
	switch name {
	case "create", "link":
		f.exists[addr] = true
	case "delete":
		delete(f.exists, addr)
	}
	return nil
}

func (f *fakeProvider) Configure(context.Context, hcl.Body) hcl.Diagnostics { return nil }
func (f *fakeProvider) Link(_ context.Context, l providers.LinkSpec) (machine.Instance, error) {
	return machine.Instance{Address: l.Address, Kind: "link", ID: l.Name}, f.op("link", l.Address)
}
func (f *fakeProvider) Create(_ context.Context, m machine.Machine) (machine.Instance, error) {
	in := machine.Instance{Address: m.Address, Kind: "machine", ID: m.Name,
		Endpoint: &machine.Endpoint{Addr: "198.18.0.1", Iface: "eth0", TemplateID: "fake-image-1"}}
	return in, f.op("create", m.Address)
}
func (f *fakeProvider) Capabilities() providers.Capabilities {
	return providers.Capabilities{GuestOffloads: true, LinkMTU: true, VCPU: true, Memory: true}
}
func (f *fakeProvider) TemplateID(context.Context, machine.Machine) (string, error) {
	return "fake-image-1", nil
}
func (f *fakeProvider) Close(context.Context) error { return nil }
func (f *fakeProvider) Read(_ context.Context, in machine.Instance) (machine.Instance, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return in, f.exists[in.Address], nil
}
func (f *fakeProvider) Delete(_ context.Context, in machine.Instance) error {
	return f.op("delete", in.Address)
}
func (f *fakeProvider) List(context.Context, machine.Owner) ([]machine.Instance, error) {
	return nil, nil
}
func (f *fakeProvider) Connect(_ context.Context, in machine.Instance) (guest.Transport, error) {
	return nopTransport{in.Address}, nil
}

type nopTransport struct{ name string }

func (n nopTransport) Run(context.Context, guest.Cmd) (guest.Result, error) {
	return guest.Result{}, nil
}
func (n nopTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (n nopTransport) Name() string                                    { return n.name }
func (n nopTransport) Close() error                                    { return nil }

// fakeOS reports MTU 1500 whatever it is asked, when stuck is set.
type fakeOS struct{ stuck bool }

func (o fakeOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (o fakeOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	mtu := s.MTU
	if o.stuck {
		mtu = 1500
	}
	return guest.Observed{Interface: iface, MTU: mtu, Kernel: "6.1"}, nil
}

type fakeRunner struct{ fail bool }

func (r fakeRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	if r.fail {
		return bench.Raw{}, errors.New("iperf3: unable to connect")
	}
	return bench.Raw{Client: "ok"}, ctx.Err()
}
func (r fakeRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 1e9, Version: "iperf 3.12"}, nil
}

type memStore struct{ saves int }

func (m *memStore) Save(*state.State) error { m.saves++; return nil }

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

func testPlan(runs int, mtu int) *plan.Plan {
	g := &plan.Group{Address: "pair.p", Pair: "p", ProviderKey: "fake.x", ProviderType: "fake", Shape: "s1",
		Link:   providers.LinkSpec{Address: "pair.p.link", LabID: "t", Name: "t-p"},
		Server: machine.Machine{Address: "pair.p.server", Role: "server", Name: "t-p-s"},
		Client: machine.Machine{Address: "pair.p.client", Role: "client", Name: "t-p-c"}}
	for i := 1; i <= runs; i++ {
		g.Runs = append(g.Runs, plan.Run{Index: i, Experiment: "e", Pair: "p", Group: g.Address, CellKey: fmt.Sprintf("n=%d", i), Repeat: 1,
			Spec: specWithMTU(mtu)})
	}
	p := &plan.Plan{Groups: []*plan.Group{g}}
	for _, a := range []struct{ addr, kind string }{{"pair.p.link", "link"}, {"pair.p.server", "machine"}, {"pair.p.client", "machine"}} {
		p.Actions = append(p.Actions, plan.Action{Op: plan.OpCreate, Address: a.addr, Kind: a.kind, Group: g.Address})
	}
	return p
}

func newEngine(prov *fakeProvider, os fakeOS, r fakeRunner) (*Engine, *memResults, *[]Event) {
	res := &memResults{}
	var events []Event
	var mu sync.Mutex
	e := &Engine{State: &state.State{}, Store: &memStore{}, Providers: map[string]providers.Provider{"fake.x": prov},
		OS:      func(string) (guest.OS, error) { return os, nil },
		Runner:  func(string) (bench.Runner, error) { return r, nil },
		Results: res, RunID: "r1", Lab: "t",
		// No /proc: the runner's real pressure would mark runs disturbed
		// by whatever else this machine is running.
		Environment: results.EnvProbe{ReadFile: func(p string) ([]byte, error) { return nil, fs.ErrNotExist }},
		View:        ViewFunc(func(ev Event) { mu.Lock(); events = append(events, ev); mu.Unlock() })}
	return e, res, &events
}

func TestApply(t *testing.T) {
	tests := []struct {
		name        string
		fail        map[string]error
		os          fakeOS
		runner      fakeRunner
		keep        bool
		wantErr     string
		wantRecords int
		wantState   []string // addresses left in state, with status
		wantExists  int
	}{
		{name: "all good", wantRecords: 3},
		{name: "keep leaves machines in state", keep: true, wantRecords: 3,
			wantState: []string{"pair.p.link created", "pair.p.server created", "pair.p.client created"}, wantExists: 3},
		{name: "create fails: error names the machine, everything removed",
			fail: map[string]error{"create:pair.p.client": errors.New("boom")}, wantErr: "provision pair.p: boom"},
		{name: "delete fails: object stays tainted for lab destroy",
			fail: map[string]error{"delete:pair.p.server": errors.New("busy")}, wantRecords: 3,
			wantErr: "delete pair.p.server: busy", wantState: []string{"pair.p.server tainted"}, wantExists: 1},
		{name: "create refused (an object of that name is not the lab's): nothing of it in state",
			fail: map[string]error{"create:pair.p.server": &providers.NotOwnedError{Kind: "domain", Name: "t-p-s", Owner: machine.Owner{Lab: "t"}},
				"delete:pair.p.server": errors.New("teardown must not try to delete what was refused")},
			wantErr: "domain t-p-s is not this lab's"},
		{name: "delete refused (not the lab's): reported once and dropped from state",
			fail: map[string]error{"delete:pair.p.server": &providers.NotOwnedError{Kind: "domain", Name: "t-p-s", Owner: machine.Owner{Lab: "t"}}}, wantRecords: 3,
			wantErr: "dropped from state", wantExists: 1},
		{name: "setting did not take effect: strict runs fail and are recorded, teardown still runs",
			os: fakeOS{stuck: true}, wantErr: "3 of 3 runs failed", wantRecords: 3},
		{name: "benchmark fails: recorded, apply reports failed runs",
			runner: fakeRunner{fail: true}, wantRecords: 3, wantErr: "3 of 3 runs failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prov := newFake()
			for k, v := range tc.fail {
				prov.fail[k] = v
			}
			e, res, _ := newEngine(prov, tc.os, tc.runner)
			e.Keep = tc.keep
			_, err := e.Apply(context.Background(), context.Background(), testPlan(3, 9000))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if len(res.recs) != tc.wantRecords {
				t.Errorf("%d records, want %d", len(res.recs), tc.wantRecords)
			}
			var left []string
			for _, r := range e.State.Resources {
				left = append(left, r.Address+" "+r.Status)
			}
			sort.Strings(left)
			want := append([]string(nil), tc.wantState...)
			sort.Strings(want)
			if strings.Join(left, ",") != strings.Join(want, ",") {
				t.Errorf("state %v, want %v", left, tc.wantState)
			}
			if len(prov.exists) != tc.wantExists {
				t.Errorf("%d objects exist after apply, want %d: %v", len(prov.exists), tc.wantExists, prov.exists)
			}
		})
	}
}

func TestApplyCancelledStillTearsDown(t *testing.T) {
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	ctx, cancel := context.WithCancel(context.Background())
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvRun {
			cancel()
		}
	})
	out, err := e.Apply(ctx, context.Background(), testPlan(3, 1500))
	if err == nil || !out.Interrupted {
		t.Fatalf("err %v interrupted %v", err, out.Interrupted)
	}
	if len(prov.exists) != 0 || len(e.State.Resources) != 0 {
		t.Errorf("left: %v / %v", prov.exists, e.State.Resources)
	}
}

// TestInterruptedApplyCountsWhatWasRecorded: an interrupt during the
// second of three runs gives an outcome of one run (the one recorded) and
// one stopped, not "2 runs" (issue 20, section 6).
func TestInterruptedApplyCountsWhatWasRecorded(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	ctx, cancel := context.WithCancel(context.Background())
	runs := 0
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvRun {
			if runs++; runs == 2 {
				cancel() // fakeRunner returns ctx.Err(): the run is stopped
			}
		}
	})
	out, err := e.Apply(ctx, context.Background(), testPlan(3, 1500))
	if err == nil || !out.Interrupted {
		t.Fatalf("err %v interrupted %v", err, out.Interrupted)
	}
	if out.Runs != len(res.recs) || out.Runs != 1 || out.Stopped != 1 || out.Failed != 0 {
		t.Errorf("outcome %d runs (%d failed), %d stopped; %d records, want 1 run, 1 stopped, 1 record", out.Runs, out.Failed, out.Stopped, len(res.recs))
	}
}

func TestTeardownAbandonedLeavesStateForDestroy(t *testing.T) {
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	work, cancel := context.WithCancel(context.Background())
	teardown, cancelTeardown := context.WithCancel(context.Background())
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvRun {
			cancel()
			cancelTeardown()
		}
	})
	if _, err := e.Apply(work, teardown, testPlan(2, 1500)); err == nil {
		t.Fatal("no error")
	}
	if len(e.State.Resources) != 3 {
		t.Fatalf("state lists %d objects, want all 3 left", len(e.State.Resources))
	}
	e.View = nil
	if err := e.Destroy(context.Background(), machine.Owner{Lab: "t"}, false); err != nil {
		t.Fatal(err)
	}
	if len(prov.exists) != 0 || len(e.State.Resources) != 0 {
		t.Errorf("left after destroy: %v / %v", prov.exists, e.State.Resources)
	}
}

func TestPendingWrittenBeforeCreate(t *testing.T) {
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	var seen []string
	e.Store = saverFunc(func(s *state.State) error {
		for _, r := range s.Resources {
			seen = append(seen, r.Address+" "+r.Status)
		}
		return nil
	})
	prov.fail["create:pair.p.server"] = errors.New("half-made")
	e.Keep = true
	_, _ = e.Apply(context.Background(), context.Background(), testPlan(1, 1500))
	joined := strings.Join(seen, "\n")
	if !strings.Contains(joined, "pair.p.server pending") || !strings.Contains(joined, "pair.p.server tainted") {
		t.Errorf("server not written pending then tainted:\n%s", joined)
	}
}

type saverFunc func(*state.State) error

func (f saverFunc) Save(s *state.State) error { return f(s) }

// meteredProvider reports hypervisor-side CPU like vSphere or libvirt do.
type meteredProvider struct{ *fakeProvider }

func (m meteredProvider) MeterCPU(_ context.Context, in machine.Instance) (func(context.Context) (machine.HostCPU, error), error) {
	return func(context.Context) (machine.HostCPU, error) {
		return machine.HostCPU{BusyPct: 42, Source: "fake:" + in.Address}, nil
	}, nil
}

func TestHostCPURecordedWhenProviderMeters(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = meteredProvider{prov}
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500)); err != nil {
		t.Fatal(err)
	}
	h := res.recs[0].HostCPU
	if h == nil || h.Server.BusyPct != 42 || h.Client.Source != "fake:pair.p.client" {
		t.Errorf("host CPU not recorded: %+v", h)
	}
}

// slowProvider holds every create until several are in flight, recording
// the highest number of concurrent creates it saw.
type slowProvider struct {
	*fakeProvider
	mu        sync.Mutex
	inflight  int
	maxInCall int
	gate      chan struct{}
	open      sync.Once
}

func (s *slowProvider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	s.mu.Lock()
	s.inflight++
	if s.inflight > s.maxInCall {
		s.maxInCall = s.inflight
	}
	if s.inflight == 3 {
		s.open.Do(func() { close(s.gate) }) // three creates overlap: let them all go
	}
	s.mu.Unlock()
	select {
	case <-s.gate:
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
	return s.fakeProvider.Create(ctx, m)
}

func TestProvisioningIsConcurrentAndBounded(t *testing.T) {
	prov := &slowProvider{fakeProvider: newFake(), gate: make(chan struct{})}
	e, _, _ := newEngine(prov.fakeProvider, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = prov
	e.Parallelism = 3
	p := testPlan(1, 1500)
	for i := 2; i <= 4; i++ { // four pairs in all
		q := testPlan(1, 1500)
		g := q.Groups[0]
		suffix := fmt.Sprintf("%d", i)
		g.Address += suffix
		g.Link.Address, g.Server.Address, g.Client.Address = "pair.p"+suffix+".link", "pair.p"+suffix+".server", "pair.p"+suffix+".client"
		p.Groups = append(p.Groups, g)
	}
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if prov.maxInCall != 3 {
		t.Errorf("at most %d creates ran at once, want exactly the parallelism (3)", prov.maxInCall)
	}
	if len(prov.exists) != 0 {
		t.Errorf("left: %v", prov.exists)
	}
}

// refusingProvider cannot set a link's MTU.
type refusingProvider struct{ *fakeProvider }

func (r refusingProvider) Capabilities() providers.Capabilities {
	return providers.Capabilities{GuestOffloads: true}
}

// A saved plan applied after the provider block changed is checked again
// against the provider's capabilities, before anything is created.
func TestCapabilityCheckRefusesBeforeCreating(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = refusingProvider{prov}
	p := testPlan(1, 1500)
	p.Groups[0].Link.MTU = 9000
	_, err := e.Apply(context.Background(), context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "Link MTU not supported") {
		t.Fatalf("err = %v", err)
	}
	if len(prov.log) != 0 || len(res.recs) != 0 {
		t.Errorf("something was created or run: %v", prov.log)
	}
}

// mtuCapOS observes MTUs above its cap as 1500: a NIC that cannot take them.
type mtuCapOS struct{ max int }

func (o mtuCapOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (o mtuCapOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	mtu := s.MTU
	if mtu > o.max {
		mtu = 1500
	}
	return guest.Observed{Interface: iface, MTU: mtu, Kernel: "6.1"}, nil
}

// One cell whose strict setting does not take effect fails its own runs,
// with the reason recorded; the other cells run and are measured.
func TestStrictSettingFailsOnlyItsCell(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.OS = func(string) (guest.OS, error) { return mtuCapOS{max: 1500}, nil }
	p := testPlan(2, 1500)
	p.Groups[0].Runs[1].Spec = specWithMTU(9000)
	out, err := e.Apply(context.Background(), context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 runs failed") || out.Failed != 1 {
		t.Fatalf("err %v, outcome %+v", err, out)
	}
	if len(res.recs) != 2 || res.recs[0].Error != "" || !strings.Contains(res.recs[1].Error, "settings did not take effect") ||
		res.recs[0].Metrics.ThroughputBps == 0 {
		t.Errorf("records: %+v", res.recs)
	}
	if len(prov.exists) != 0 {
		t.Errorf("left: %v", prov.exists)
	}
}

// A full disk during teardown: the objects are deleted, the state cannot
// say so; the error is a *StateSaveError with one "save state" prefix.
func TestTeardownStateSaveFailure(t *testing.T) {
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	full := false
	e.Store = saverFunc(func(*state.State) error {
		if full {
			return errors.New("save state: write state.json: no space left on device")
		}
		return nil
	})
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvTeardown {
			full = true
		}
	})
	out, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500))
	var se *StateSaveError
	if err == nil || !errors.As(out.Teardown, &se) {
		t.Fatalf("err %v, teardown %v: want a *StateSaveError", err, out.Teardown)
	}
	if strings.Contains(err.Error(), "save state: save state") {
		t.Errorf("doubled prefix: %q", err)
	}
	if len(prov.exists) != 0 {
		t.Errorf("objects left: %v", prov.exists)
	}
}

// A failed apply says so in its event stream (for -json consumers) before
// the teardown starts.
func TestFailedApplyEmitsError(t *testing.T) {
	prov := newFake()
	prov.fail["create:pair.p.client"] = errors.New("boom")
	e, _, events := newEngine(prov, fakeOS{}, fakeRunner{})
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500)); err == nil {
		t.Fatal("apply succeeded")
	}
	var types []string
	for _, ev := range *events {
		types = append(types, ev.Type)
		if ev.Type == EvError && !strings.Contains(ev.Message, "boom") {
			t.Errorf("error event %q does not carry the error", ev.Message)
		}
	}
	joined := strings.Join(types, " ")
	if !strings.Contains(joined, EvError+" "+EvTeardown) {
		t.Errorf("events %s: want error, then teardown", joined)
	}
}

// noisyRunner alternates between 1 and 2 Gb/s: its CI never gets narrow.
type noisyRunner struct {
	fakeRunner
	n *int
}

func (r noisyRunner) Parse(bench.Raw) (bench.Sample, error) {
	*r.n++
	return bench.Sample{ThroughputBps: float64(1+*r.n%2) * 1e9}, nil
}

// Adaptive repeats: each cell runs its minimum, then stops once its CI is
// narrow enough; the skipped repeats are counted, not recorded.
func TestAdaptiveRepeatsStopDecidedCells(t *testing.T) {
	prov := newFake()
	e, res, events := newEngine(prov, fakeOS{}, fakeRunner{})
	p := testPlan(10, 1500)
	for i := range p.Groups[0].Runs {
		r := &p.Groups[0].Runs[i]
		r.CellKey, r.Repeat, r.MinRepeat, r.UntilCI = "n=1", i+1, 3, 0.03
	}
	out, err := e.Apply(context.Background(), context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Runs != 3 || out.Skipped != 7 || len(res.recs) != 3 {
		t.Errorf("outcome %+v, %d records: want 3 runs and 7 skipped", out, len(res.recs))
	}
	n := 0
	for _, ev := range *events {
		if ev.Type == EvSkipped {
			n++
			if !strings.Contains(ev.Message, "decided after 3 runs") {
				t.Errorf("skip message %q", ev.Message)
			}
		}
	}
	if n != 7 {
		t.Errorf("%d skipped events, want 7", n)
	}
}

func TestAdaptiveRepeatsRunNoisyCellsToMax(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	n := 0
	e.Runner = func(string) (bench.Runner, error) { return noisyRunner{n: &n}, nil }
	p := testPlan(6, 1500)
	for i := range p.Groups[0].Runs {
		r := &p.Groups[0].Runs[i]
		r.CellKey, r.Repeat, r.MinRepeat, r.UntilCI = "n=1", i+1, 3, 0.03
	}
	out, err := e.Apply(context.Background(), context.Background(), p)
	if err != nil || out.Runs != 6 || out.Skipped != 0 || len(res.recs) != 6 {
		t.Errorf("err %v, outcome %+v, %d records: a noisy cell runs to max", err, out, len(res.recs))
	}
}

// Adaptive repeats until = "verdict": a cell stops as soon as the
// group-sequential band rule (verdicts.GroupSeqLook) decides its band (1 Gb/s every run: inside
// 1 ± 10 % passes, 2 ± 10 % fails, after the minimum of 3), and a cell
// with no band runs to max (stopping on the width is not this rule).
func TestAdaptiveRepeatsStopOnVerdict(t *testing.T) {
	for _, tc := range []struct {
		bands []verdicts.Target
		runs  int
		why   string
	}{
		{[]verdicts.Target{{Value: 1, Tolerance: 0.1}}, 3, "pass after 3 runs"},
		{[]verdicts.Target{{Value: 2, Tolerance: 0.1}}, 3, "fail after 3 runs"},
		{[]verdicts.Target{{Value: 1, Tolerance: 0.1}, {Value: 2, Tolerance: 0.1}}, 3, "pass after 3 runs: mean 1 with no spread inside [0.9, 1.1]; fail after 3 runs"},
		{nil, 8, ""},
	} {
		prov := newFake()
		e, res, events := newEngine(prov, fakeOS{}, fakeRunner{})
		p := testPlan(8, 1500)
		for i := range p.Groups[0].Runs {
			r := &p.Groups[0].Runs[i]
			r.CellKey, r.Repeat, r.MinRepeat, r.UntilVerdict, r.MaxRepeat, r.Bands = "n=1", i+1, 3, true, 8, tc.bands
		}
		out, err := e.Apply(context.Background(), context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if out.Runs != tc.runs || out.Skipped != 8-tc.runs || len(res.recs) != tc.runs {
			t.Errorf("bands %v: outcome %+v, %d records: want %d runs", tc.bands, out, len(res.recs), tc.runs)
		}
		for _, ev := range *events {
			if ev.Type == EvSkipped && !strings.Contains(ev.Message, tc.why) {
				t.Errorf("bands %v: skip message %q, want %q", tc.bands, ev.Message, tc.why)
			}
		}
	}
}
