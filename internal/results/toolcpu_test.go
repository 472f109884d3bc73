package results

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
)

// The tool's own CPU is shown per end when the tool measured its process
// (iperf3), mapped to the end that sent or received; SharedCPU flags an
// end whose system-wide figure is mostly other work.
func TestToolCPUAndSharedCPU(t *testing.T) {
	rec := func(scope string, reverse bool, sender, receiver float64, server, client bench.CPUUsage) Record {
		r := Record{Metrics: bench.Sample{ToolCPUScope: scope, ToolCPUSender: sender, ToolCPUReceiver: receiver,
			ServerCPU: server, ClientCPU: client}}
		r.Intent.Bench.Reverse = reverse
		return r
	}
	one := func(user, system float64) bench.CPUUsage {
		return bench.CPUUsage{CPUs: []int{1}, User: user, System: system, Busy: user + system}
	}
	tests := []struct {
		name           string
		r              Record
		server, client float64 // the tool CPU metrics; -1: not shown
		shared         []string
	}{
		{"iperf3 at 10 Gb/s: the tool is the work", rec("process", false, 92, 41, one(1, 45), one(0.4, 91)), 41, 92, nil},
		{"reversed: the server sends", rec("process", true, 92, 41, one(0.4, 91), one(1, 45)), 92, 41, nil},
		{"10 Mb/s UDP on a busy host", rec("process", false, 8, 4, one(60, 34), one(2, 10)), 4, 8, []string{"server: system-wide user+system 94 % of a CPU, the tool's own process 4 %"}},
		{"netperf's figure is system-wide", rec("system", false, 90, 40, one(60, 34), one(2, 10)), -1, -1, nil},
		{"records from before the scope", rec("", false, 90, 40, one(60, 34), one(2, 10)), -1, -1, nil},
		{"four CPUs at 30 %: 120 points of other work", rec("process", false, 10, 10, bench.CPUUsage{NumCPUs: 4, User: 20, System: 10}, one(1, 9)), 10, 10, []string{"server: system-wide user+system 120 % of a CPU, the tool's own process 10 %"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []struct {
				key  string
				want float64
			}{{MetricServerToolCPU, tt.server}, {MetricClientToolCPU, tt.client}} {
				metric, _ := MetricByKey(m.key)
				v, ok := metric.Value(tt.r)
				if ok != (m.want >= 0) || ok && v != m.want {
					t.Errorf("%s = %v (%v), want %v", m.key, v, ok, m.want)
				}
			}
			if got := SharedCPU(tt.r); strings.Join(got, "|") != strings.Join(tt.shared, "|") {
				t.Errorf("SharedCPU %q, want %q", got, tt.shared)
			}
		})
	}
}
