package results

import "testing"

// TestIPVersionText: IPv4 runs say nothing; IPv6 and dual-stack runs name
// the version and the addresses, client to server; a group lists each
// distinct one once.
func TestIPVersionText(t *testing.T) {
	for _, c := range []struct {
		p    Provenance
		want string
	}{
		{Provenance{}, ""},
		{Provenance{IPVersion: "6", ServerAddr: "fd00:1::1", ClientAddr: "fd00:1::2"}, "IPv6 fd00:1::2 -> fd00:1::1"},
		{Provenance{IPVersion: "dual", ServerAddr: "fd00:1::1", ClientAddr: "fd00:1::2"}, "IPv6 (dual stack) fd00:1::2 -> fd00:1::1"},
	} {
		if got := IPVersionText(c.p); got != c.want {
			t.Errorf("IPVersionText(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	v6 := Provenance{IPVersion: "6", ServerAddr: "fd00:1::1", ClientAddr: "fd00:1::2"}
	recs := []Record{{Experiment: "e", Pair: "p", Repeat: 1, Provenance: v6}, {Experiment: "e", Pair: "p", Repeat: 2, Provenance: v6},
		{Experiment: "e", Pair: "q", Repeat: 1}}
	for _, g := range Group(recs) {
		want := map[string]int{"p": 1, "q": 0}[g.Pair]
		if len(g.IPVersions) != want {
			t.Errorf("pair %s: IPVersions %q, want %d", g.Pair, g.IPVersions, want)
		}
	}
}
