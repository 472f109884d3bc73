package engine

import (
	"reflect"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
)

// TestToolsNeededByOS: what each end is checked for before the first run,
// by its OS — Linux: ethtool always, tc for loss, nft for a router's
// firewall (an end's fails at apply), taskset when pinned (not on a
// router); FreeBSD: the benchmark alone (the rest is its base system).
func TestToolsNeededByOS(t *testing.T) {
	loss := &guest.Loss{Percent: 1, Method: "nth"}
	cs := spec.CellSpec{Bench: bench.Params{Tool: "iperf3"},
		Server: guest.Settings{Loss: loss, Firewall: "chain x {}"}, Client: guest.Settings{},
		Router: guest.Settings{Firewall: "chain forward {}"}}
	g := &plan.Group{Runs: []plan.Run{{Spec: cs}}}
	for _, c := range []struct {
		role, os string
		pinned   bool
		want     []string
	}{
		{"server", "linux", true, []string{"ethtool", "iperf3", "taskset", "tc"}},
		{"client", "", false, []string{"ethtool", "iperf3"}},
		{"router", "linux", true, []string{"ethtool", "nft"}},
		{"server", "freebsd", true, []string{"iperf3"}},
		{"router", "freebsd", false, []string{}},
	} {
		if got := toolsNeeded(g, c.role, c.os, c.pinned); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s on %q (pinned %v): %q, want %q", c.role, c.os, c.pinned, got, c.want)
		}
	}
}

// TestMissingToolsHints: the install hint follows the guest's OS.
func TestMissingToolsHints(t *testing.T) {
	for _, c := range []struct{ os, want string }{
		{"linux", "g: not installed: iperf3 (Debian/Ubuntu: apt-get install iperf3), taskset (Debian/Ubuntu: apt-get install util-linux)"},
		{"freebsd", "g: not installed: iperf3 (pkg install benchmarks/iperf3), taskset (part of the base system)"},
	} {
		err := &MissingToolsError{Guest: "g", OS: c.os, Missing: []string{"iperf3", "taskset"}}
		if got := err.Error(); got[:len(c.want)] != c.want {
			t.Errorf("%s: %s\nwant prefix %s", c.os, got, c.want)
		}
	}
}
