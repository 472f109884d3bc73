package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
)

// changesOS is a guest.OS with ApplyChanges that logs each call per guest
// and interface; drift makes the first read-back after an ApplyChanges on
// a guest show MTU 1500, as if something outside lab had set it.
type changesOS struct {
	mu    sync.Mutex
	log   map[string][]string
	drift map[string]bool // guest -> drift still to come
	last  map[string]bool // guest -> last call was ApplyChanges
}

func (o *changesOS) note(t guest.Transport, what string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log[t.Name()] = append(o.log[t.Name()], what)
	o.last[t.Name()] = what == "changes"
}

func (o *changesOS) Apply(_ context.Context, t guest.Transport, _ string, _ guest.Settings) error {
	o.note(t, "apply")
	return nil
}

func (o *changesOS) ApplyChanges(_ context.Context, t guest.Transport, _ string, prev guest.Settings, now guest.Observed, s guest.Settings) error {
	o.note(t, "changes")
	return nil
}

func (o *changesOS) Observe(_ context.Context, t guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	mtu := s.MTU
	if o.drift[t.Name()] && o.last[t.Name()] {
		o.drift[t.Name()] = false
		mtu = 1500
	}
	return guest.Observed{Interface: iface, MTU: mtu, Kernel: "6.1"}, nil
}

// TestConfigureAppliesOnlyChangesAfterAVerifiedRun: an end's first run
// applies every setting; its later runs start from the read-back that
// verified the run before (ApplyChanges), and a read-back that no longer
// holds (drift) sends that run back to a full Apply — its record still
// shows the MTU asked for.
func TestConfigureAppliesOnlyChangesAfterAVerifiedRun(t *testing.T) {
	cases := []struct {
		name       string
		drift      bool
		wantServer string
	}{
		{name: "steady", wantServer: "apply changes changes"},
		{name: "drift", drift: true, wantServer: "apply changes apply changes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os := &changesOS{log: map[string][]string{}, drift: map[string]bool{"pair.p.server": tc.drift}, last: map[string]bool{}}
			e, res, _ := newEngine(newFake(), fakeOS{}, fakeRunner{})
			e.OS = func(string) (guest.OS, error) { return os, nil }
			if _, err := e.Apply(context.Background(), context.Background(), testPlan(3, 9000)); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(os.log["pair.p.server"], " "); got != tc.wantServer {
				t.Errorf("server: %s, want %s", got, tc.wantServer)
			}
			if got := strings.Join(os.log["pair.p.client"], " "); got != "apply changes changes" {
				t.Errorf("client: %s, want apply changes changes", got)
			}
			for _, r := range res.recs {
				if r.Error != "" || r.Observed.Server.MTU != 9000 || r.Observed.Client.MTU != 9000 {
					t.Errorf("run %s: error %q, observed MTU %d/%d", r.CellKey, r.Error, r.Observed.Server.MTU, r.Observed.Client.MTU)
				}
			}
		})
	}
}
