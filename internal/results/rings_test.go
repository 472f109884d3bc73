package results

import (
	"testing"

	"github.com/lab-bench/lab/guest"
)

// TestRingText: observed ring sizes become "end: rx=cur/max tx=cur/max"
// in group provenance; a maximum not reported is left out, no rings read
// is "" (and so not listed).
func TestRingText(t *testing.T) {
	for _, tt := range []struct {
		r    *guest.Rings
		want string
	}{
		{&guest.Rings{RX: 1024, TX: 512, RXMax: 4096, TXMax: 4096}, "server: rx=1024/4096 tx=512/4096"},
		{&guest.Rings{RX: 256, RXMax: 256}, "server: rx=256/256 tx=0"},
		{nil, ""},
	} {
		if got := RingText("server", tt.r); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.r, got, tt.want)
		}
	}
	recs := []Record{
		{Experiment: "e", Pair: "p", CellKey: "c", Repeat: 1, Observed: Observed{Server: guest.Observed{Rings: &guest.Rings{RX: 1024, TX: 512}}}},
		{Experiment: "e", Pair: "p", CellKey: "c", Repeat: 2, Observed: Observed{Server: guest.Observed{Rings: &guest.Rings{RX: 1024, TX: 512}},
			Client: guest.Observed{Rings: &guest.Rings{RX: 256, TX: 256}}}},
	}
	g := Group(recs)
	if len(g) != 1 || len(g[0].Rings) != 2 || g[0].Rings[0] != "server: rx=1024 tx=512" || g[0].Rings[1] != "client: rx=256 tx=256" {
		t.Errorf("group rings: %+v", g)
	}
}
