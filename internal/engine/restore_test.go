package engine

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// borrowedProvider is the fake provider whose machines are not lab's.
type borrowedProvider struct{ *fakeProvider }

func (b borrowedProvider) Capabilities() providers.Capabilities {
	c := b.fakeProvider.Capabilities()
	c.Borrowed, c.NICRings = true, true // like the hosts back end
	return c
}

// hostOS keeps each guest's current settings the way a real machine does:
// Apply changes them, Observe reports them.
type hostOS struct {
	mu       sync.Mutex
	hosts    map[string]*guest.Observed // by transport name
	failWhen func(guest string, s guest.Settings) error
}

func newHostOS(names ...string) *hostOS {
	o := &hostOS{hosts: map[string]*guest.Observed{}}
	for _, n := range names {
		o.hosts[n] = &guest.Observed{MTU: 1500, CongestionControl: "bbr",
			Offloads: map[string]string{"gro": "on", "lro": "off [fixed]", "tso": "on"},
			Sysctl:   map[string]string{"net.ipv4.tcp_rmem": "4096\t131072\t6291456"},
			Rings:    &guest.Rings{RX: 256, TX: 512, RXMax: 4096, TXMax: 4096}}
	}
	return o
}

func (o *hostOS) Apply(_ context.Context, t guest.Transport, _ string, s guest.Settings) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.failWhen != nil {
		if err := o.failWhen(t.Name(), s); err != nil {
			return err
		}
	}
	h := o.hosts[t.Name()]
	if s.MTU > 0 {
		h.MTU = s.MTU
	}
	if s.RxRing > 0 || s.TxRing > 0 {
		r := *h.Rings
		if s.RxRing > 0 {
			r.RX = s.RxRing
		}
		if s.TxRing > 0 {
			r.TX = s.TxRing
		}
		h.Rings = &r
	}
	for k, v := range s.Offloads {
		if !strings.Contains(h.Offloads[k], "fixed") {
			h.Offloads[k] = map[bool]string{true: "on", false: "off"}[v]
		}
	}
	if s.CongestionControl != "" {
		h.CongestionControl = s.CongestionControl
	}
	maps.Copy(h.Sysctl, s.Sysctl)
	h.Loss = ""
	if s.Loss != nil && s.Loss.Percent > 0 {
		h.Loss = "nth"
	}
	return nil
}

func (o *hostOS) Observe(_ context.Context, t guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	h := *o.hosts[t.Name()]
	h.Interface = iface
	h.Offloads, h.Sysctl = maps.Clone(h.Offloads), maps.Clone(h.Sysctl)
	if s.RxRing == 0 && s.TxRing == 0 {
		h.Rings = nil // read only when asked, as guest/linux does
	}
	return h, nil
}

func (o *hostOS) current(name string) guest.Observed {
	o.mu.Lock()
	defer o.mu.Unlock()
	return *o.hosts[name]
}

func borrowedEngine(t *testing.T, os *hostOS) (*Engine, *fakeProvider) {
	t.Helper()
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = borrowedProvider{prov}
	e.OS = func(string) (guest.OS, error) { return os, nil }
	return e, prov
}

// runsChanging is a plan whose runs change MTU, ring sizes, gro,
// congestion control, a sysctl and loss on both ends.
func runsChanging() *plan.Plan {
	p := testPlan(2, 9000)
	g := p.Groups[0]
	for i := range g.Runs {
		s := &g.Runs[i].Spec
		for _, side := range []*guest.Settings{&s.Server, &s.Client} {
			side.Offloads = map[string]bool{"gro": i == 1, "lro": true}
			side.CongestionControl = "reno"
			side.Sysctl = map[string]string{"net.ipv4.tcp_rmem": "4096 87380 16777216"}
			side.Loss = &guest.Loss{Percent: 1, Method: "nth"}
			side.RxRing, side.TxRing = 1024*(i+1), 2048
			side.Strict = false // lro is fixed: a warning, not a failure
		}
	}
	return p
}

func TestBorrowedMachinesGetTheirSettingsBack(t *testing.T) {
	hosts := newHostOS("pair.p.server", "pair.p.client")
	before := hosts.current("pair.p.server")
	e, prov := borrowedEngine(t, hosts)
	var snapshots []string
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvSnapshot {
			snapshots = append(snapshots, ev.Address)
			// The record is in state before the first configure.
			r, _ := e.State.Find(ev.Address)
			if r == nil || r.Attrs[RestoreAttr] == "" {
				t.Errorf("%s: no %s attribute in state at snapshot", ev.Address, RestoreAttr)
			}
		}
	})
	if _, err := e.Apply(context.Background(), context.Background(), runsChanging()); err != nil {
		t.Fatal(err)
	}
	if len(snapshots) != 2 {
		t.Errorf("snapshots of %v, want both ends once", snapshots)
	}
	for _, name := range []string{"pair.p.server", "pair.p.client"} {
		got := hosts.current(name)
		if got.MTU != before.MTU || got.CongestionControl != before.CongestionControl || got.Offloads["gro"] != "on" ||
			got.Sysctl["net.ipv4.tcp_rmem"] != "4096 131072 6291456" || got.Loss != "" ||
			got.Rings.RX != 256 || got.Rings.TX != 512 {
			t.Errorf("%s after teardown: %+v, want the settings from before: %+v", name, got, before)
		}
	}
	if len(prov.exists) != 0 || len(e.State.Resources) != 0 {
		t.Errorf("left: %v / %v", prov.exists, e.State.Resources)
	}
}

func TestRestoreFailureKeepsMachineForDestroy(t *testing.T) {
	hosts := newHostOS("pair.p.server", "pair.p.client")
	e, _ := borrowedEngine(t, hosts)
	restoring := false
	e.View = ViewFunc(func(ev Event) {
		if ev.Type == EvTeardown {
			restoring = true
		}
	})
	hosts.failWhen = func(name string, s guest.Settings) error {
		if restoring && name == "pair.p.server" {
			return errors.New("connection lost")
		}
		return nil
	}
	_, err := e.Apply(context.Background(), context.Background(), runsChanging())
	if err == nil || !strings.Contains(err.Error(), "restore pair.p.server: connection lost") {
		t.Fatalf("err = %v", err)
	}
	// The client was restored and let go (and the link); the server
	// stays, tainted, with its record, for `lab destroy`.
	if len(e.State.Resources) != 1 {
		t.Fatalf("state: %+v", e.State.Resources)
	}
	r, _ := e.State.Find("pair.p.server")
	if r == nil || r.Status != "tainted" || r.Attrs[RestoreAttr] == "" {
		t.Fatalf("server in state: %+v", r)
	}
	if c := hosts.current("pair.p.client"); c.MTU != 1500 {
		t.Errorf("client not restored: %+v", c)
	}
	// `lab destroy` later, the host reachable again.
	hosts.failWhen = nil
	if err := e.Destroy(context.Background(), machine.Owner{Lab: "t"}, false); err != nil {
		t.Fatal(err)
	}
	if s := hosts.current("pair.p.server"); s.MTU != 1500 || s.CongestionControl != "bbr" {
		t.Errorf("server after destroy: %+v", s)
	}
	if len(e.State.Resources) != 0 {
		t.Errorf("state after destroy: %+v", e.State.Resources)
	}
}

func TestKeptMachineKeepsFirstSnapshot(t *testing.T) {
	hosts := newHostOS("pair.p.server", "pair.p.client")
	e, _ := borrowedEngine(t, hosts)
	e.Keep = true
	if _, err := e.Apply(context.Background(), context.Background(), runsChanging()); err != nil {
		t.Fatal(err)
	}
	// Second apply on the kept machines: they now run MTU 9000, but the
	// record must still say 1500.
	p := runsChanging()
	for i := range p.Actions {
		r, _ := e.State.Find(p.Actions[i].Address)
		p.Actions[i].Op, p.Actions[i].Old = plan.OpKeep, r
	}
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	r, _ := e.State.Find("pair.p.server")
	var rec Restore
	if err := json.Unmarshal([]byte(r.Attrs[RestoreAttr]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Settings.MTU != 1500 || rec.Settings.CongestionControl != "bbr" {
		t.Errorf("record after second apply: %+v", rec.Settings)
	}
}

func TestNotBorrowedNothingRecorded(t *testing.T) {
	prov := newFake()
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Keep = true
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 9000)); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.State.Resources {
		if _, ok := r.Attrs[RestoreAttr]; ok {
			t.Errorf("%s has a restore record", r.Address)
		}
	}
}

func TestSnapshotOf(t *testing.T) {
	tests := []struct {
		name  string
		touch guest.Settings
		obs   guest.Observed
		want  string // JSON of the settings
	}{
		{"nothing touched", guest.Settings{}, guest.Observed{MTU: 1500}, `{"strict":true}`},
		{"mtu and cc", guest.Settings{MTU: 9000, CongestionControl: "reno"}, guest.Observed{MTU: 1500, CongestionControl: "bbr"},
			`{"mtu":1500,"congestion_control":"bbr","strict":true}`},
		{"fixed offload left out", guest.Settings{Offloads: map[string]bool{"lro": true, "gro": false, "tso": false}},
			guest.Observed{Offloads: map[string]string{"lro": "off [fixed]", "gro": "on", "tso": "off [requested on]"}},
			`{"offloads":{"gro":true,"tso":false},"strict":true}`},
		{"ring sizes", guest.Settings{RxRing: 4096, TxRing: 2048}, guest.Observed{Rings: &guest.Rings{RX: 1024, TX: 512, RXMax: 4096, TXMax: 4096}},
			`{"rx_ring":1024,"tx_ring":512,"strict":true}`},
		{"rx ring only", guest.Settings{RxRing: 4096}, guest.Observed{Rings: &guest.Rings{RX: 1024, TX: 512}},
			`{"rx_ring":1024,"strict":true}`},
		{"sysctl whitespace normalised", guest.Settings{Sysctl: map[string]string{"a.b": "1"}},
			guest.Observed{Sysctl: map[string]string{"a.b": "4096\t87380  6291456\n"}}, `{"sysctl":{"a.b":"4096 87380 6291456"},"strict":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(SnapshotOf(tc.touch, tc.obs))
			if string(b) != tc.want {
				t.Errorf("got %s, want %s", b, tc.want)
			}
		})
	}
}

var _ providers.Provider = borrowedProvider{}
