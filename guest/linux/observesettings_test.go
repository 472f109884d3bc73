package linux_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/linux"
)

// TestObserveSettingsReadsNoProvenance: after a first Observe, the read-back
// of a later run (ObserveSettings) reads every setting as Observe does but
// not the kernel, the driver and the link speed, which it takes from the
// first: the same Observed, three commands fewer (issue 32 §6).
func TestObserveSettingsReadsNoProvenance(t *testing.T) {
	s := guest.Settings{MTU: 1500, Offloads: map[string]bool{"gro": false}, CongestionControl: "bbr",
		Sysctl: map[string]string{"net.ipv4.tcp_rmem": "4096 131072 6291456"}}
	first := newFake(veth(t))
	full, err := linux.New().Observe(context.Background(), first, "veth0", s)
	if err != nil {
		t.Fatal(err)
	}
	if full.Kernel == "" || full.Driver != "veth" || full.LinkSpeed == "" {
		t.Fatalf("first read-back lacks provenance: %+v", full)
	}
	later := newFake(veth(t))
	got, err := linux.New().ObserveSettings(context.Background(), later, "veth0", s, full)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, full) {
		t.Errorf("ObserveSettings:\n%+v\nObserve:\n%+v", got, full)
	}
	for _, c := range []string{"$ uname -r", "$ ethtool -i veth0", "$ ethtool veth0\n"} {
		if strings.Contains(later.Log.String(), c) {
			t.Errorf("ObserveSettings ran %q:\n%s", c, later.Log.String())
		}
	}
	want := strings.Count(first.Log.String(), "$ ") - 3
	if n := strings.Count(later.Log.String(), "$ "); n != want {
		t.Errorf("%d commands, want %d:\n%s", n, want, later.Log.String())
	}
}
