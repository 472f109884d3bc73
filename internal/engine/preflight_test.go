package engine

import (
	"slices"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
)

// TestToolsNeededAsksTheTools checks that preflight takes each end's
// benchmark programs from the registered tool (bench.Tool.Programs) and
// the install hint of a tool's program from the tool's packages.
func TestToolsNeededAsksTheTools(t *testing.T) {
	group := func(tool string) *plan.Group {
		return &plan.Group{Runs: []plan.Run{{Spec: spec.CellSpec{Bench: bench.Params{Tool: tool}}}}}
	}
	tests := []struct {
		tool, role, os string
		want           []string
	}{
		{"", "server", "linux", []string{"ethtool", "iperf3"}},
		{"iperf3", "client", "freebsd", []string{"iperf3"}},
		{"iperf2", "server", "linux", []string{"ethtool", "iperf"}},
		{"netperf", "server", "freebsd", []string{"netserver"}},
		{"netperf", "client", "linux", []string{"ethtool", "netperf"}},
		{"netperf", "router", "linux", []string{"ethtool"}},
	}
	for _, tt := range tests {
		if got := toolsNeeded(group(tt.tool), tt.role, tt.os, false); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s on %s: %v, want %v", tt.tool, tt.role, tt.os, got, tt.want)
		}
	}
	hints := map[[2]string]string{
		// Debian 12 has netperf only in non-free (issue 35).
		{"linux", "netserver"}:   "Debian: enable the non-free component in /etc/apt/sources.list.d/debian.sources, apt-get update, then apt-get install netperf; Ubuntu: apt-get install netperf (multiverse)",
		{"freebsd", "netserver"}: "pkg install benchmarks/netperf",
		{"linux", "iperf"}:       "Debian/Ubuntu: apt-get install iperf",
		{"freebsd", "iperf3"}:    "pkg install benchmarks/iperf3",
		{"linux", "tc"}:          "Debian/Ubuntu: apt-get install iproute2",
		{"freebsd", "ipfw"}:      "part of the base system",
		{"linux", "sockperf"}:    "Debian/Ubuntu: apt-get install sockperf",
		// No port packages sockperf: the hint says how to build it.
		{"freebsd", "sockperf"}: bench.Lookup("sockperf").Programs[0].Unpackaged[guest.PackagingPorts],
	}
	for k, want := range hints {
		if got := installHint(k[0], k[1]); got != want {
			t.Errorf("installHint(%s, %s) = %q, want %q", k[0], k[1], got, want)
		}
	}
}
