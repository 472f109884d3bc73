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
