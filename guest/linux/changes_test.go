package linux_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/linux"
	"github.com/lab-bench/lab/internal/golden"
)

// TestApplyChangesTranscripts: after a verified read-back (now), only the
// steps whose setting does not already show run; the firewall step runs
// when the held apply or this one asks a ruleset. The read-backs are veth's as Observe parses them (veth-ethtool-k.txt:
// gro off, lro off [fixed]; the netem line is tc's, as in
// apply-none-removes-loss).
func TestApplyChangesTranscripts(t *testing.T) {
	clean := guest.Observed{Interface: "veth0", MTU: 9000, CongestionControl: "bbr", CCScope: "namespace",
		Offloads: map[string]string{"gro": "off", "lro": "off [fixed]", "tso": "on"},
		Sysctl:   map[string]string{"net.ipv4.tcp_rmem": "4096\t131072\t6291456"}}
	steady := guest.Settings{MTU: 9000, Offloads: map[string]bool{"gro": false, "tso": true}, CongestionControl: "bbr",
		Sysctl: map[string]string{"net.ipv4.tcp_rmem": "4096 131072 6291456"}}
	with := func(f func(*guest.Settings)) guest.Settings {
		s := steady
		s.Offloads = map[string]bool{"gro": false, "tso": true}
		f(&s)
		return s
	}
	withObs := func(f func(*guest.Observed)) guest.Observed { o := clean; f(&o); return o }
	cases := []struct {
		name    string
		prev, s guest.Settings
		now     guest.Observed
		replies map[string]reply
	}{
		{name: "changes-none", prev: steady, s: steady, now: clean},
		{name: "changes-gro", prev: steady, s: with(func(s *guest.Settings) { s.Offloads["gro"] = true }), now: clean},
		{name: "changes-mtu", prev: steady, s: with(func(s *guest.Settings) { s.MTU = 1500 }), now: clean},
		{name: "changes-sysctl", prev: steady, s: with(func(s *guest.Settings) { s.Sysctl = map[string]string{"net.ipv4.tcp_rmem": "4096 87380 6291456"} }), now: clean},
		// A loss rule in the read-back is removed as by Apply.
		{name: "changes-loss-left", prev: steady, s: steady, now: withObs(func(o *guest.Observed) { o.Loss = "qdisc netem 8001: root refcnt 2 limit 1000 loss 0.5%" }),
			replies: map[string]reply{"tc qdisc show dev veth0 root": {Out: "qdisc netem 8001: root refcnt 2 limit 1000 loss 0.5%\n"}}},
		// Over IPv6 the read-back saw one family's chain only: both are flushed.
		{name: "changes-ipv6", prev: steady, s: with(func(s *guest.Settings) { s.IPv6 = true }), now: clean},
		{name: "changes-loss-asked", prev: steady, s: with(func(s *guest.Settings) { s.Loss = &guest.Loss{Percent: 1, Method: "nth"} }), now: clean},
		// A ruleset the held apply loaded is deleted when none is asked now.
		{name: "changes-firewall-dropped", prev: with(func(s *guest.Settings) { s.Firewall = "chain input { type filter hook input priority 0; }" }), s: steady, now: clean},
		// Rings read back as asked are not read again, unless the MTU changes.
		{name: "changes-rings-held", prev: with(func(s *guest.Settings) { s.RxRing = 1024 }), s: with(func(s *guest.Settings) { s.RxRing = 1024 }),
			now: withObs(func(o *guest.Observed) { o.Rings = &guest.Rings{RX: 1024, TX: 512, RXMax: 4096, TXMax: 4096} })},
		{name: "changes-rings-mtu", prev: with(func(s *guest.Settings) { s.RxRing = 2048 }), s: with(func(s *guest.Settings) { s.RxRing = 2048; s.MTU = 1500 }),
			now:     withObs(func(o *guest.Observed) { o.Rings = &guest.Rings{RX: 2048, TX: 512, RXMax: 4096, TXMax: 4096} }),
			replies: map[string]reply{"ethtool -g veth0": {Out: testdata(t, "vmxnet3-ethtool-g.txt")}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(veth(t))
			for k, v := range tc.replies {
				f.Replies[k] = v
			}
			for _, x := range []struct {
				what string
				v    any
			}{{"prev", tc.prev}, {"now", tc.now}, {"settings", tc.s}} {
				js, _ := json.Marshal(x.v)
				fmt.Fprintf(&f.Log, "# %s: %s\n", x.what, js)
			}
			err := linux.New().ApplyChanges(context.Background(), f, "veth0", tc.prev, tc.now, tc.s)
			fmt.Fprintf(&f.Log, "# error: %v\n", err)
			if err != nil {
				t.Error(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), f.Log.String())
		})
	}
}
