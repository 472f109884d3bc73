package freebsd_test

import (
	"reflect"
	"testing"

	"github.com/lab-bench/lab/guest/freebsd"
)

// TestParseIfconfigSeeds parses the interfaces printed in seed 003 (plain
// `ifconfig`, no capabilities line) and the -m fixtures.
func TestParseIfconfigSeeds(t *testing.T) {
	tests := []struct {
		file       string
		mtu        int
		on, notOn  []string
		hasCapList bool
	}{
		{"seed-003-ifconfig-vtnet0.txt", 1500, []string{"JUMBO_MTU", "LINKSTATE"}, []string{"LRO", "TSO4", "RXCSUM", "PERFORMNUD"}, false},
		{"seed-003-ifconfig-bce3.txt", 1500, []string{"RXCSUM", "TXCSUM", "TSO4"}, []string{"LRO"}, false},
		{"ifconfig-m-vtnet0-tap.txt", 1500, []string{"LINKSTATE"}, []string{"LRO", "TSO4", "RXCSUM", "TXCSUM"}, true},
		{"ifconfig-m-vmx0.txt", 1500, []string{"RXCSUM", "TSO4", "TSO6"}, []string{"LRO"}, true},
		{"ifconfig-m-vtnet0-vale.txt", 9000, []string{"TSO4", "TXCSUM"}, []string{"LRO"}, true},
	}
	for _, tc := range tests {
		ifc, err := freebsd.ParseIfconfig(testdata(t, tc.file))
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if ifc.MTU != tc.mtu || (ifc.Capabilities != nil) != tc.hasCapList {
			t.Errorf("%s: mtu %d, capabilities %v", tc.file, ifc.MTU, ifc.Capabilities)
		}
		for _, f := range tc.on {
			if !ifc.Options[f] {
				t.Errorf("%s: %s not in options %v", tc.file, f, ifc.Options)
			}
		}
		for _, f := range tc.notOn {
			if ifc.Options[f] {
				t.Errorf("%s: %s in options", tc.file, f)
			}
		}
	}
	for _, bad := range []string{"", "ifconfig: interface vtnet9 does not exist\n", "vtnet0: flags=8843<UP> metric 0 mtu x\n"} {
		if _, err := freebsd.ParseIfconfig(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseCCAvailable(t *testing.T) {
	tests := map[string][]string{
		"newreno, cubic, htcp\n": {"newreno", "cubic", "htcp"},
		"\nCCmod           D PCB count\ncubic           * 3\nnewreno           0\n": {"cubic", "newreno"},
		"": nil,
	}
	for in, want := range tests {
		if got := freebsd.ParseCCAvailable(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

func TestPLRAndDriver(t *testing.T) {
	for pct, want := range map[float64]string{1: "0.01", 0.5: "0.005", 100: "1", 12.5: "0.125"} {
		if got := freebsd.PLR(pct); got != want {
			t.Errorf("PLR(%v) = %s, want %s", pct, got, want)
		}
	}
	for in, want := range map[string]string{"vtnet0": "vtnet", "vmx12": "vmx", "em0": "em", "ix1": "ix"} {
		if got := freebsd.Driver(in); got != want {
			t.Errorf("Driver(%s) = %s", in, got)
		}
	}
}
