package freebsd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/guest/guesttest"
	"github.com/lab-bench/lab/internal/golden"
)

// reply is a canned answer of the fake transport.
type reply = guesttest.Reply

// newFake records the commands a driver runs as guest pair.fbsd.client.
func newFake(replies map[string][]reply) *guesttest.Recorder {
	return &guesttest.Recorder{Guest: "pair.fbsd.client", Queue: replies}
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	ccTable  = "\nCCmod           D PCB count\ncubic           * 3\nnewreno           0\n"
	ipfwList = "00100 set 29 pipe 29 ip from any to any in recv vtnet0\n65535 set 31 allow ip from any to any\n"
	// ipfw pipe list on FreeBSD 14 (see testdata/ipfw-pipe-list-14.txt).
	pipeList = "00029: unlimited         0 ms burst 0\n" +
		"q131101  50 sl.plr 0.010000 0 flows (1 buckets) sched 65565 weight 0 lmax 0 pri 0 droptail\n" +
		" sched 65565 type FIFO flags 0x0 0 buckets 0 active\n"
)

// bhyveGuest answers like a FreeBSD 14.2 guest on bhyve with a tap-backed
// vtnet0: no offloads offered, cubic the default, ipfw not loaded.
func bhyveGuest(t *testing.T) map[string][]reply {
	return map[string][]reply{
		"ifconfig -m vtnet0":                         {{Out: testdata(t, "ifconfig-m-vtnet0-tap.txt")}},
		"ifconfig -m vmx0":                           {{Out: testdata(t, "ifconfig-m-vmx0.txt")}},
		"sysctl -n net.inet.tcp.cc.available":        {{Out: ccTable}},
		"sysctl -n net.inet.tcp.cc.algorithm":        {{Out: "cubic\n"}},
		"sysctl -n net.inet.tcp.sendspace":           {{Out: "8192\n"}},
		"sysctl -n net.inet.tcp.recvspace":           {{Out: "65536\n"}},
		"sysctl -n net.inet.ip.fw.default_to_accept": {{Out: "1\n"}},
		"kldstat -q -m ipfw":                         {{Code: 1}},
		"kldstat -q -m dummynet":                     {{Code: 1}},
		"uname -sr":                                  {{Out: "FreeBSD 14.2-RELEASE-p1\n"}},
		// test(1): exit status 1 when the file does not exist — lab never
		// loaded a pf ruleset on this guest.
		"test -e /var/run/lab-pf.conf": {{Code: 1}},
	}
}

func TestTranscripts(t *testing.T) {
	loaded := map[string][]reply{"kldstat -q -m ipfw": {{}}, "kldstat -q -m dummynet": {{}}}
	with := func(a, b map[string][]reply) map[string][]reply {
		m := map[string][]reply{}
		for k, v := range a {
			m[k] = v
		}
		for k, v := range b {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name     string
		iface    string // default vtnet0
		s        guest.Settings
		replies  map[string][]reply // added to bhyveGuest's
		observe  bool
		wantFail bool
	}{
		{name: "apply-full", s: guest.Settings{
			MTU:               9000,
			Offloads:          map[string]bool{"lro": false, "tso": false, "rx": true},
			CongestionControl: "newreno",
			Sysctl:            map[string]string{"net.inet.tcp.sendspace": "8192", "net.inet.tcp.recvspace": "8192"},
			Loss:              &guest.Loss{Percent: 1, Method: "random"},
		}},
		{name: "apply-cc-loads-module", s: guest.Settings{CongestionControl: "htcp"},
			replies: map[string][]reply{"sysctl -n net.inet.tcp.cc.available": {{Out: ccTable}, {Out: ccTable + "htcp              0\n"}}}},
		{name: "apply-cc-missing-module", s: guest.Settings{CongestionControl: "bbr"}, wantFail: true,
			replies: map[string][]reply{"kldload -n cc_bbr": {{Code: 1, Stderr: "kldload: can't load cc_bbr: No such file or directory\n"}}}},
		{name: "apply-loss-ipfw-loaded", s: guest.Settings{Loss: &guest.Loss{Percent: 0.5, Method: "random"}}, replies: loaded},
		// loss_port: ipfw(8) "tcp from any to any dst-port 5001".
		{name: "apply-loss-port", s: guest.Settings{Loss: &guest.Loss{Percent: 1, Method: "random", Port: 5001}}, replies: loaded},
		// Over IPv6 the rule matches IPv6 packets only (ipfw's ip6 option).
		{name: "apply-loss-port-ipv6", s: guest.Settings{IPv6: true, Loss: &guest.Loss{Percent: 1, Method: "random", Port: 5201}}, replies: loaded},
		{name: "apply-loss-deny-default-refused", s: guest.Settings{Loss: &guest.Loss{Percent: 1, Method: "random"}}, wantFail: true,
			replies: map[string][]reply{"sysctl -n net.inet.ip.fw.default_to_accept": {{Out: "0\n"}}}},
		{name: "apply-none-removes-loss", s: guest.Settings{},
			replies: with(loaded, map[string][]reply{"ipfw -S list": {{Out: ipfwList}}, "ipfw pipe list": {{Out: pipeList}}})},
		{name: "apply-none-no-ipfw", s: guest.Settings{}},
		{name: "apply-refused", wantFail: true, s: guest.Settings{
			Offloads: map[string]bool{"gro": true, "gso": false},
			Loss:     &guest.Loss{Percent: 1, Method: "nth"},
			Firewall: "set skip on lo0\ninclude \"/etc/pf.conf\"",
		}},
		{name: "observe-tap", observe: true, s: guest.Settings{
			MTU:               9000,
			Offloads:          map[string]bool{"lro": true, "tso": true},
			CongestionControl: "newreno",
			Sysctl:            map[string]string{"net.inet.tcp.sendspace": "8192"},
		}},
		// ifconfig-m-vtnet0-vale.txt is what a vtnet offers behind bhyve's
		// netmap (VALE) backend: the backend's NETMAP_FEATURES (CSUM,
		// HOST_TSO4/6, GUEST_CSUM, GUEST_TSO4/6; usr.sbin/bhyve/
		// net_backends.c, netmap_get_cap) turned into capabilities by
		// vtnet_setup_interface (sys/dev/virtio/network/if_vtnet.c): no
		// RXCSUM_IPV6 ("notyet" there) and no VLAN_HWFILTER (it needs
		// VIRTIO_NET_F_CTRL_VLAN; bhyve's virtio-net has no control queue,
		// usr.sbin/bhyve/pci_virtio_net.c VTNET_S_HOSTCAPS). LRO is offered
		// but off, TSO on: the "did not change" case.
		{name: "observe-vale-requested", observe: true, s: guest.Settings{
			MTU:      9000,
			Offloads: map[string]bool{"lro": true, "tso": false},
		}, replies: map[string][]reply{"ifconfig -m vtnet0": {{Out: testdata(t, "ifconfig-m-vtnet0-vale.txt")}}}},
		{name: "observe-vmx0-loss", iface: "vmx0", observe: true, s: guest.Settings{
			Offloads: map[string]bool{"lro": true},
			Loss:     &guest.Loss{Percent: 1, Method: "random"},
		}, replies: with(loaded, map[string][]reply{"ipfw -S list": {{Out: strings.ReplaceAll(ipfwList, "vtnet0", "vmx0")}}, "ipfw pipe list": {{Out: pipeList}}})},
		{name: "observe-leftover-loss", observe: true, s: guest.Settings{},
			replies: with(loaded, map[string][]reply{"ipfw -S list": {{Out: ipfwList}}, "ipfw pipe list": {{Out: pipeList}}})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(with(bhyveGuest(t), tc.replies))
			iface := tc.iface
			if iface == "" {
				iface = "vtnet0"
			}
			js, _ := json.Marshal(tc.s)
			fmt.Fprintf(&f.Log, "# %s settings: %s\n", iface, js)
			var err error
			if tc.observe {
				var o guest.Observed
				o, err = freebsd.New().Observe(context.Background(), f, iface, tc.s)
				js, _ := json.MarshalIndent(o, "", "  ")
				fmt.Fprintf(&f.Log, "# observed: %s\n# verify: %q\n", js, guest.Verify(tc.s, o))
			} else {
				err = freebsd.New().Apply(context.Background(), f, iface, tc.s)
			}
			fmt.Fprintf(&f.Log, "# error: %v\n", err)
			if (err != nil) != tc.wantFail {
				t.Errorf("error = %v, want failure %v", err, tc.wantFail)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), f.Log.String())
		})
	}
}
