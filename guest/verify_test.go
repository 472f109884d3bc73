package guest

import (
	"reflect"
	"testing"
)

func TestVerify(t *testing.T) {
	s := Settings{
		MTU:               9000,
		Offloads:          map[string]bool{"gro": true, "lro": true, "tso": false, "gso": false, "rx": true},
		CongestionControl: "cubic",
		Sysctl:            map[string]string{"net.ipv4.tcp_rmem": "4096 131072  6291456", "net.core.somaxconn": "1024"},
		Loss:              &Loss{Percent: 1, Method: "nth"},
	}
	o := Observed{
		MTU:               1500,
		Offloads:          map[string]string{"gro": "on", "lro": "off [fixed]", "tso": "on [requested off]", "gso": "off [fixed]"},
		CongestionControl: "bbr",
		Sysctl:            map[string]string{"net.ipv4.tcp_rmem": "4096\t131072\t6291456", "net.core.somaxconn": "4096"},
	}
	want := []string{
		`mtu: asked 9000, guest reports 1500`,
		`lro: asked on, guest reports "off [fixed]"`,
		`rx: asked on, guest does not report it`,
		`tso: asked off, guest reports "on [requested off]"`,
		`congestion control: asked cubic, guest reports "bbr"`,
		`sysctl net.core.somaxconn: asked "1024", guest reports "4096"`,
		`loss: asked 1% (nth), guest has no loss rule`,
	}
	if got := Verify(s, o); !reflect.DeepEqual(got, want) {
		t.Errorf("Verify:\n got %q\nwant %q", got, want)
	}

	o = Observed{MTU: 9000, Offloads: map[string]string{"gro": "on", "lro": "on", "tso": "off", "gso": "off [fixed]", "rx": "on [fixed]"},
		CongestionControl: "cubic", CCScope: "socket",
		Sysctl: map[string]string{"net.ipv4.tcp_rmem": "4096\t131072\t6291456", "net.core.somaxconn": "1024"},
		Loss:   "-A LAB-LOSS -i eth0 -m statistic --mode nth --every 100 --packet 0 -j DROP"}
	if got := Verify(s, o); len(got) != 0 {
		t.Errorf("Verify of a matching guest: %q", got)
	}
	if got := Verify(Settings{}, o); !reflect.DeepEqual(got, []string{`loss: asked none, guest has "` + o.Loss + `"`}) {
		t.Errorf("leftover loss rule: %q", got)
	}
}

// TestVerifyRings: a ring size asked is compared with the current size
// the guest reports; one not asked is never compared.
func TestVerifyRings(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    Settings
		o    *Rings
		want []string
	}{
		{"both match", Settings{RxRing: 1024, TxRing: 512}, &Rings{RX: 1024, TX: 512, RXMax: 4096, TXMax: 4096}, nil},
		{"rx only asked", Settings{RxRing: 256}, &Rings{RX: 256, TX: 4096}, nil},
		{"rx differs", Settings{RxRing: 1024, TxRing: 512}, &Rings{RX: 256, TX: 512}, []string{"rx_ring: asked 1024, guest reports 256"}},
		{"tx differs", Settings{TxRing: 512}, &Rings{RX: 256, TX: 256}, []string{"tx_ring: asked 512, guest reports 256"}},
		{"not reported", Settings{RxRing: 1024, TxRing: 512}, nil, []string{
			"rx_ring: asked 1024, guest does not report ring sizes",
			"tx_ring: asked 512, guest does not report ring sizes"}},
		{"none asked", Settings{}, nil, nil},
	} {
		if got := Verify(tt.s, Observed{Rings: tt.o}); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
