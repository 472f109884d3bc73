package freebsd_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/internal/golden"
)

// unknownOID is sysctl(8)'s answer on a kernel without the OID: parse()
// in sbin/sysctl/sysctl.c of FreeBSD 7.x and 8.x (usage "sysctl
// [-bdehNnoqx]") calls errx(1, "unknown oid '%s'", bufp), so stderr reads
// "sysctl: unknown oid 'NAME'" and the exit status is 1.
func unknownOID(name string) []reply {
	return []reply{{Code: 1, Stderr: "sysctl: unknown oid '" + name + "'\n"}}
}

// freebsd72Host answers like seed 004's FreeBSD 7.2-RELEASE hosts (Adrian
// Chadd's Pentium D boxes with an 82573E em(4)): no mod_cc(4) — it first
// appeared in FreeBSD 9.0 — so every net.inet.tcp.cc OID is unknown, and
// NewReno is the kernel's only algorithm.
//
// ifconfig-m-em0-7.2.txt: the flags line as ifconfig.c status() prints it
// ("%s: ", flags=, " metric %d", " mtu %d"), options= and capabilities=
// with -m, and em(4)'s capabilities of the 7.x driver (em_setup_interface,
// sys/dev/e1000/if_em.c: IFCAP_HWCSUM | IFCAP_VLAN_HWCSUM, TSO4 on
// adapters after the 82544 — enabled on 82571 and later, the 82573
// included — VLAN_HWTAGGING | VLAN_MTU; no LRO, no JUMBO_MTU).
func freebsd72Host(t *testing.T) map[string][]reply {
	return map[string][]reply{
		"ifconfig -m em0":                     {{Out: testdata(t, "ifconfig-m-em0-7.2.txt")}},
		"sysctl -n net.inet.tcp.cc.available": unknownOID("net.inet.tcp.cc.available"),
		"sysctl -n net.inet.tcp.cc.algorithm": unknownOID("net.inet.tcp.cc.algorithm"),
		"sysctl -n net.inet.tcp.sendspace":    {{Out: "8192\n"}},
		"sysctl -n net.inet.tcp.recvspace":    {{Out: "8192\n"}},
		// kldstat(8): kldstat [-q] [-m modname]; -q exits 1 when the
		// module is not loaded (seed 004's hosts set net.inet.ip.fw.enable=0
		// and load no ipfw).
		"kldstat -q -m ipfw":           {{Code: 1}},
		"kldstat -q -m dummynet":       {{Code: 1}},
		"uname -sr":                    {{Out: "FreeBSD 7.2-RELEASE\n"}},
		"test -e /var/run/lab-pf.conf": {{Code: 1}},
	}
}

// TestTranscriptsFreeBSD7 drives seed 004's settings (NewReno, the
// client's socket buffers) against a FreeBSD 7.2 host: NewReno is
// recorded and accepted without a sysctl write, any other algorithm is
// refused with the reason.
func TestTranscriptsFreeBSD7(t *testing.T) {
	seed004 := guest.Settings{
		CongestionControl: "newreno",
		Sysctl:            map[string]string{"net.inet.tcp.sendspace": "8192", "net.inet.tcp.recvspace": "8192"},
	}
	cases := []struct {
		name     string
		s        guest.Settings
		observe  bool
		wantFail bool
	}{
		{name: "freebsd7.2-apply-newreno", s: seed004},
		{name: "freebsd7.2-observe-newreno", s: seed004, observe: true},
		{name: "freebsd7.2-apply-cubic-refused", s: guest.Settings{CongestionControl: "cubic"}, wantFail: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(freebsd72Host(t))
			js, _ := json.Marshal(tc.s)
			fmt.Fprintf(&f.Log, "# FreeBSD 7.2-RELEASE (no mod_cc), em0 settings: %s\n", js)
			var err error
			if tc.observe {
				var o guest.Observed
				o, err = freebsd.New().Observe(context.Background(), f, "em0", tc.s)
				js, _ := json.MarshalIndent(o, "", "  ")
				fmt.Fprintf(&f.Log, "# observed: %s\n# verify: %q\n", js, guest.Verify(tc.s, o))
				if o.CongestionControl != freebsd.OnlyCC {
					t.Errorf("congestion control %q, want %q", o.CongestionControl, freebsd.OnlyCC)
				}
			} else {
				err = freebsd.New().Apply(context.Background(), f, "em0", tc.s)
			}
			fmt.Fprintf(&f.Log, "# error: %v\n", err)
			if (err != nil) != tc.wantFail {
				t.Errorf("error = %v, want failure %v", err, tc.wantFail)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), f.Log.String())
		})
	}
}
