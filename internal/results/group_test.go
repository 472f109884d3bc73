package results

import (
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/machine"
)

func rec(exp, pair, cell string, repeat int, gbps float64) Record {
	return Record{
		Experiment: exp, Pair: pair, CellKey: cell, Cell: []CellValue{{Name: "mtu", Value: cell}}, Repeat: repeat,
		Metrics: bench.Sample{ThroughputBps: gbps * 1e9, Retransmits: int64(repeat),
			ServerCPU: bench.CPUUsage{Busy: 50}, ClientCPU: bench.CPUUsage{Busy: 25}},
		Provenance: Provenance{ServerKernel: "6.1", ClientKernel: "14.2", ToolVersion: "iperf 3.16", Host: "h"},
	}
}

func TestGroup(t *testing.T) {
	warm := rec("e", "a", "1500", 1, 99)
	warm.Warmup = true
	failed := rec("e", "a", "9000", 2, 0)
	failed.Error = "iperf3: connection refused"
	allFailed := rec("e", "b", "1500", 1, 0)
	allFailed.Error = "boom"
	records := []Record{
		warm,
		rec("e", "a", "1500", 1, 10), rec("e", "a", "9000", 1, 20), failed,
		rec("e", "a", "1500", 2, 12), rec("e", "a", "1500", 3, 14),
		allFailed,
	}
	groups := Group(records)
	type want struct {
		pair, cell string
		n, failed  int
		mean       float64
		known      bool
	}
	wants := []want{
		{"a", "1500", 3, 0, 12e9, true},
		{"a", "9000", 1, 1, 20e9, false},
		{"b", "1500", 0, 1, 0, false},
	}
	if len(groups) != len(wants) {
		t.Fatalf("got %d groups, want %d: %+v", len(groups), len(wants), groups)
	}
	for i, w := range wants {
		g := groups[i]
		if g.Pair != w.pair || g.CellKey != w.cell || g.N != w.n || g.Failed != w.failed ||
			g.ThroughputBps.Mean != w.mean || g.ThroughputBps.Known != w.known {
			t.Errorf("group %d = %s/%s n=%d failed=%d mean=%v known=%v, want %+v",
				i, g.Pair, g.CellKey, g.N, g.Failed, g.ThroughputBps.Mean, g.ThroughputBps.Known, w)
		}
	}
	g := groups[0]
	if g.Retransmits.Mean != 2 || g.ServerCPU.Mean != 50 || g.ClientCPU.Mean != 25 {
		t.Errorf("group 0 retransmits/cpu = %v/%v/%v", g.Retransmits.Mean, g.ServerCPU.Mean, g.ClientCPU.Mean)
	}
	if len(g.Kernels) != 2 || len(g.ToolVersions) != 1 || len(g.Hosts) != 1 {
		t.Errorf("group 0 provenance = %v %v %v", g.Kernels, g.ToolVersions, g.Hosts)
	}
}

func TestCyclesPerBit(t *testing.T) {
	r := rec("e", "a", "1500", 1, 10)
	// 50 % of 2 CPUs at 2500 MHz for 10 Gb/s: 0.25 cycles per bit.
	r.Metrics.ServerCPU = bench.CPUUsage{Busy: 50, MHz: 2500, NumCPUs: 2}
	r.Metrics.ClientCPU = bench.CPUUsage{Busy: 50} // clock unknown
	r.HostCPU = &HostCPUPair{Client: machine.HostCPU{BusyPct: 80, MHz: 5000}}
	g := Group([]Record{r})[0]
	if g.ServerCyclesPerBit.Mean != 0.25 || g.ClientCyclesPerBit.Mean != 0.5 {
		t.Errorf("cycles per bit: server %v, client %v", g.ServerCyclesPerBit, g.ClientCyclesPerBit)
	}
}

// TestGroupClampsToPhysicalRange: a small skewed sample's t-interval
// reaches below 0 Gb/s and above 100 % CPU; the group's summaries do not.
func TestGroupClampsToPhysicalRange(t *testing.T) {
	var recs []Record
	for i, v := range []float64{0.1, 5, 0.2} {
		r := rec("e", "a", "1500", i+1, v)
		r.Metrics.ServerCPU.Busy = []float64{99, 100, 60}[i]
		recs = append(recs, r)
	}
	g := Group(recs)[0]
	if tp := g.ThroughputBps; tp.CI95Low != 0 || tp.CI95High <= tp.Mean {
		t.Errorf("throughput CI [%v, %v]", tp.CI95Low, tp.CI95High)
	}
	if cpu := g.ServerCPU; cpu.CI95High != 100 || cpu.CI95Low >= cpu.Mean {
		t.Errorf("server CPU CI [%v, %v]", cpu.CI95Low, cpu.CI95High)
	}
	if r := g.Retransmits; r.CI95Low < 0 {
		t.Errorf("retransmits CI [%v, %v]", r.CI95Low, r.CI95High)
	}
}
