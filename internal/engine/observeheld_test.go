package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
)

// settingsOS is changesOS that can also read back only the settings
// (settingsObserver), logging which read-back each run used.
type settingsOS struct{ changesOS }

func (o *settingsOS) Observe(ctx context.Context, t guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	o.note(t, "observe")
	return o.changesOS.Observe(ctx, t, iface, s)
}

func (o *settingsOS) ObserveSettings(ctx context.Context, t guest.Transport, iface string, s guest.Settings, known guest.Observed) (guest.Observed, error) {
	o.note(t, "observe-settings")
	obs, err := o.changesOS.Observe(ctx, t, iface, s)
	obs.Kernel = known.Kernel
	return obs, err
}

// TestConfigureReadsProvenanceOnce: an end's first run reads back
// everything; its later runs, after a verified read-back, read back only
// the settings (settingsObserver) and keep the kernel the first read — on
// every record (issue 32 §6).
func TestConfigureReadsProvenanceOnce(t *testing.T) {
	os := &settingsOS{changesOS{log: map[string][]string{}, drift: map[string]bool{}, last: map[string]bool{}}}
	e, res, _ := newEngine(newFake(), fakeOS{}, fakeRunner{})
	e.OS = func(string) (guest.OS, error) { return os, nil }
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(3, 9000)); err != nil {
		t.Fatal(err)
	}
	const want = "apply observe changes observe-settings changes observe-settings"
	for _, g := range []string{"pair.p.server", "pair.p.client"} {
		if got := strings.Join(os.log[g], " "); got != want {
			t.Errorf("%s: %s, want %s", g, got, want)
		}
	}
	if len(res.recs) != 3 {
		t.Fatalf("%d records", len(res.recs))
	}
	for _, r := range res.recs {
		if r.Error != "" || r.Observed.Server.Kernel != "6.1" || r.Observed.Client.MTU != 9000 {
			t.Errorf("run %s: error %q, kernel %q, MTU %d", r.CellKey, r.Error, r.Observed.Server.Kernel, r.Observed.Client.MTU)
		}
	}
}
