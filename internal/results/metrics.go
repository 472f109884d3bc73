package results

import (
	"fmt"
	"math"
	"slices"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// Metric is one quantity measured per run. Every metric of the catalogue
// (Metrics) is summarised per cell by Group into CellGroup.Metrics, and
// from there reaches every report format, `lab compare -metric` and
// `expect` blocks: adding a metric here is all it takes to carry it.
type Metric struct {
	// Key names the metric in CellGroup.Metrics, JSON, CSV column names,
	// `lab compare -metric` and verdicts ("latency_p99_us").
	Key string
	// Label is the table header ("p99 µs"); Unit the unit of displayed
	// values, which are the recorded value × Scale.
	Label string
	Unit  string
	Scale float64
	// Decimals are the decimals tables show.
	Decimals int
	// LowerIsBetter says which way is an improvement (latency, loss, CPU).
	LowerIsBetter bool
	// Max is the largest value the quantity can physically take (100 for
	// a percentage; +Inf otherwise); every metric is ≥ 0.
	Max float64
	// Always says the metric is shown even when no run measured it (the
	// throughput, retransmit and CPU columns every table has had).
	Always bool
	// Hidden keeps the metric out of the summary tables (it is in JSON,
	// per-run CSV, `lab compare -metric` and checks): the sender's
	// throughput, which a table would show next to the receiver's for
	// every TCP run, nearly always the same.
	Hidden bool
	// Disturbance is the way a neighbour on an end's or the runner's
	// CPUs can move the metric: the noise guard keeps the verdicts such a
	// move cannot explain (see disturbed). EitherWay for every metric of
	// the catalogue until a controlled-neighbour measurement establishes
	// a direction: TestCPUHogDirectionForReal (cmd/lab) found a run on a
	// shared runner can come out faster as well as slower.
	Disturbance Direction
	// Value is a successful run's value and whether the run measured it.
	Value func(Record) (float64, bool) `json:"-"`
}

// Direction is the way a neighbour on the CPUs can move a metric
// (Metric.Disturbance). Only a controlled-neighbour measurement — the
// same run with and without a CPU hog on its CPUs, repeated — may set a
// metric's direction to anything but EitherWay.
type Direction int

const (
	// EitherWay: a neighbour can move the metric up or down, or nobody
	// has measured which (every metric of the catalogue, for now).
	EitherWay Direction = iota
	// OnlyDown: a neighbour can only lower the metric (a slowed end moves
	// fewer bytes per second, the tempting assumption that a run 15 %
	// faster under a hog refutes).
	OnlyDown
	// OnlyUp: a neighbour can only raise the metric (a descheduled end
	// answering later).
	OnlyUp
)

// String is "down", "up" or "either way".
func (d Direction) String() string {
	switch d {
	case OnlyDown:
		return "down"
	case OnlyUp:
		return "up"
	}
	return "either way"
}

// Display converts a recorded value to the displayed unit.
func (m Metric) Display(v float64) float64 { return v * m.Scale }

// Metric keys used by code outside the catalogue.
const (
	MetricThroughput = "throughput_bps"
	// MetricSenderThroughput is the sending end's throughput (iperf3's
	// end.sum_sent; iperf 2's and netperf's one figure, the sender's).
	MetricSenderThroughput = "sender_throughput_bps"
	MetricRetransmits      = "retransmits"
	MetricServerCPU        = "server_cpu_pct"
	MetricClientCPU        = "client_cpu_pct"
	MetricRouterCPU        = "router_cpu_pct"
	// MetricServerToolCPU and MetricClientToolCPU are the benchmark
	// process's own CPU on each end (iperf3's), beside the ends'
	// system-wide figures.
	MetricServerToolCPU = "server_tool_cpu_pct"
	MetricClientToolCPU = "client_tool_cpu_pct"
	MetricServerCPB     = "server_cycles_per_bit"
	MetricClientCPB     = "client_cycles_per_bit"
	MetricLatencyMean   = "latency_mean_us"
	MetricLatencyP50    = "latency_p50_us"
	MetricLatencyP90    = "latency_p90_us"
	MetricLatencyP99    = "latency_p99_us"
	MetricTransactions  = "transactions_per_sec"
	MetricLoss          = "loss_pct"
	MetricJitter        = "jitter_ms"
	MetricPackets       = "packets_per_sec"
	// MetricBackground is the throughput of the background load run during
	// the measured benchmark (background { … }), in bits per second.
	MetricBackground = "background_throughput_bps"
	// MetricRunnerPressure is the runner's CPU pressure during the
	// benchmark (Environment.CPUPressure), in percent of its wall time.
	MetricRunnerPressure = "runner_cpu_pressure_pct"
	// MetricReverseThroughput is the opposite direction's throughput of
	// a bidirectional test (bench.Sample.ReverseBps: iperf 2 -d).
	MetricReverseThroughput = "reverse_throughput_bps"
)

// Metrics is the catalogue, in the order tables show the metrics.
var Metrics = []Metric{
	{Key: MetricThroughput, Label: "throughput Gb/s", Unit: "Gb/s", Scale: 1e-9, Decimals: 2, Always: true,
		Value: func(r Record) (float64, bool) { return r.Metrics.ThroughputBps, true }},
	{Key: MetricSenderThroughput, Label: "sender Gb/s", Unit: "Gb/s", Scale: 1e-9, Decimals: 2, Hidden: true,
		Value: func(r Record) (float64, bool) { v := r.Metrics.SenderBps; return v, v > 0 }},
	{Key: MetricRetransmits, Label: "retransmits", Unit: "", Scale: 1, Decimals: 1, Always: true, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { return float64(r.Metrics.Retransmits), true }},
	{Key: MetricServerCPU, Label: "server CPU %", Unit: "%", Scale: 1, Decimals: 1, Always: true, LowerIsBetter: true, Max: 100,
		Value: func(r Record) (float64, bool) { return r.Metrics.ServerCPU.Busy, true }},
	{Key: MetricClientCPU, Label: "client CPU %", Unit: "%", Scale: 1, Decimals: 1, Always: true, LowerIsBetter: true, Max: 100,
		Value: func(r Record) (float64, bool) { return r.Metrics.ClientCPU.Busy, true }},
	{Key: MetricServerToolCPU, Label: "server tool CPU %", Unit: "%", Scale: 1, Decimals: 1, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { return toolCPU(r, true) }},
	{Key: MetricClientToolCPU, Label: "client tool CPU %", Unit: "%", Scale: 1, Decimals: 1, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { return toolCPU(r, false) }},
	{Key: MetricRouterCPU, Label: "router CPU %", Unit: "%", Scale: 1, Decimals: 1, LowerIsBetter: true, Max: 100,
		Value: func(r Record) (float64, bool) {
			if c := r.Metrics.RouterCPU; c != nil {
				return c.Busy, true
			}
			return 0, false
		}},
	{Key: MetricServerCPB, Label: "server cycles/bit", Scale: 1, Decimals: 2, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { v := cyclesPerBit(r, true); return v, v > 0 }},
	{Key: MetricClientCPB, Label: "client cycles/bit", Scale: 1, Decimals: 2, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { v := cyclesPerBit(r, false); return v, v > 0 }},
	latencyMetric(MetricLatencyMean, "latency mean µs", func(l latency) float64 { return l.MeanUs }),
	latencyMetric(MetricLatencyP50, "latency p50 µs", func(l latency) float64 { return l.P50Us }),
	latencyMetric(MetricLatencyP90, "latency p90 µs", func(l latency) float64 { return l.P90Us }),
	latencyMetric(MetricLatencyP99, "latency p99 µs", func(l latency) float64 { return l.P99Us }),
	{Key: MetricTransactions, Label: "transactions/s", Unit: "/s", Scale: 1, Decimals: 0,
		Value: func(r Record) (float64, bool) { v := r.Metrics.TransactionsPerSec; return v, v > 0 }},
	{Key: MetricLoss, Label: "loss %", Unit: "%", Scale: 1, Decimals: 3, LowerIsBetter: true, Max: 100,
		Value: func(r Record) (float64, bool) { return r.Metrics.LossPct, udp(r) }},
	{Key: MetricJitter, Label: "jitter ms", Unit: "ms", Scale: 1, Decimals: 3, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) { return r.Metrics.JitterMs, udp(r) }},
	// iperf3's end.sum.packets counts every datagram the receiver
	// expected, lost ones too (iperf_api.c: lost + received), so the label says so.
	{Key: MetricPackets, Label: "packets/s (incl. lost)", Unit: "/s", Scale: 1, Decimals: 0,
		Value: func(r Record) (float64, bool) { v := r.Metrics.PacketsPerSec; return v, v > 0 }},
	{Key: MetricBackground, Label: "load Gb/s", Unit: "Gb/s", Scale: 1e-9, Decimals: 2,
		Value: func(r Record) (float64, bool) {
			if b := r.Background; b != nil && b.Error == "" {
				return b.Metrics.ThroughputBps, true
			}
			return 0, false
		}},
	// Hidden: what a published table can be checked against (seed 004's
	// -d reverse figures, seed 003's netstat -s counts); `lab show`
	// prints the counters already.
	{Key: MetricReverseThroughput, Label: "reverse Gb/s", Unit: "Gb/s", Scale: 1e-9, Decimals: 2, Hidden: true,
		Value: func(r Record) (float64, bool) { v := r.Metrics.ReverseBps; return v, v > 0 }},
	counterMetric(true, guest.CounterRetransSegments, "retransmitted segments"),
	counterMetric(false, guest.CounterRetransSegments, "retransmitted segments"),
	counterMetric(true, guest.CounterTimeouts, "timeouts"),
	counterMetric(false, guest.CounterTimeouts, "timeouts"),
	counterMetric(true, guest.CounterRecoveries, "recoveries"),
	counterMetric(false, guest.CounterRecoveries, "recoveries"),
	// The runner's, not the guests': what Comparable reads, shown so that
	// two runs' conditions can be compared at a glance.
	{Key: MetricRunnerPressure, Label: "runner CPU pressure %", Unit: "%", Scale: 1, Decimals: 1, LowerIsBetter: true, Max: 100,
		Value: func(r Record) (float64, bool) {
			if env := r.Environment; env != nil && env.CPUPressureKnown {
				return env.CPUPressure, true
			}
			return 0, false
		}},
}

type latency = bench.LatencySample

// counterMetric is one TCP counter of the server's (or client's) end over
// the run (RunCounters), "server_timeouts": a count, hidden from the
// summary tables, measured when the record has that end's counter.
func counterMetric(server bool, name, label string) Metric {
	end := "client"
	if server {
		end = "server"
	}
	return Metric{Key: end + "_" + name, Label: end + " " + label, Unit: "", Scale: 1, Decimals: 1, Hidden: true, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) {
			if r.Counters == nil {
				return 0, false
			}
			snap := r.Counters.Client
			if server {
				snap = r.Counters.Server
			}
			if snap == nil {
				return 0, false
			}
			v, ok := snap.TCP[name]
			return float64(v), ok
		}}
}

func latencyMetric(key, label string, f func(latency) float64) Metric {
	return Metric{Key: key, Label: label, Unit: "µs", Scale: 1, Decimals: 1, LowerIsBetter: true,
		Value: func(r Record) (float64, bool) {
			l := r.Metrics.Latency
			if l == nil {
				return 0, false
			}
			v := f(*l)
			return v, v > 0
		}}
}

// toolCPU is the benchmark process's own CPU on the server (or client)
// end, in percent of one CPU, when the tool measured its process's
// (bench.Sample.ToolCPUScope "process").
func toolCPU(r Record, server bool) (float64, bool) {
	m := r.Metrics
	if m.ToolCPUScope != "process" {
		return 0, false
	}
	if server == r.Intent.Bench.Reverse { // the server sends in a reversed run
		return m.ToolCPUSender, true
	}
	return m.ToolCPUReceiver, true
}

// SharedCPUPoints is how many percentage points of one CPU the system-wide
// user and system time of an end may exceed its benchmark process's own
// before SharedCPU says other work shared the end's CPUs.
const SharedCPUPoints = 50.0

// SharedCPU says, for each end of r whose tool measured its own process's
// CPU, when the end's system-wide figure mostly is other work: its user
// and system time (softirq left out: the kernel's packet work for the
// benchmark lands there) over its CPUs, in percent of one CPU, exceeds the
// tool's own by more than SharedCPUPoints and is more than twice it. A
// 10 Mb/s UDP stream whose pinned CPU shows 93 % busy while iperf3 used
// 4 % is such a run: the system-wide CPU column is the host's, not the
// benchmark's.
func SharedCPU(r Record) []string {
	var out []string
	for _, end := range []struct {
		name   string
		server bool
		cpu    bench.CPUUsage
	}{{"server", true, r.Metrics.ServerCPU}, {"client", false, r.Metrics.ClientCPU}} {
		tool, ok := toolCPU(r, end.server)
		if !ok {
			continue
		}
		n := max(end.cpu.NumCPUs, len(end.cpu.CPUs), 1)
		sys := (end.cpu.User + end.cpu.System) * float64(n)
		if sys-tool > SharedCPUPoints && tool < sys/2 {
			out = append(out, fmt.Sprintf("%s: system-wide user+system %.0f %% of a CPU, the tool's own process %.0f %%", end.name, sys, tool))
		}
	}
	return out
}

// udp reports whether a run measured datagram loss and jitter.
func udp(r Record) bool { return r.Intent.Bench.UDP || r.Metrics.Packets > 0 }

// MetricByKey finds a metric of the catalogue.
func MetricByKey(key string) (Metric, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		return Metric{}, false
	}
	return Metrics[i], true
}

// MetricKeys lists the catalogue's keys in order.
func MetricKeys() []string {
	keys := make([]string, len(Metrics))
	for i, m := range Metrics {
		keys[i] = m.Key
	}
	return keys
}

// Metric is the summary of the metric key over the group's runs (N = 0
// when no run measured it). The metrics that have a named field of their
// own are read from it, so a group built by hand needs only that field.
func (g CellGroup) Metric(key string) Summary {
	switch key {
	case MetricThroughput:
		return g.ThroughputBps
	case MetricRetransmits:
		return g.Retransmits
	case MetricServerCPU:
		return g.ServerCPU
	case MetricClientCPU:
		return g.ClientCPU
	case MetricServerCPB:
		return g.ServerCyclesPerBit
	case MetricClientCPB:
		return g.ClientCyclesPerBit
	}
	return g.Metrics[key]
}

// Measured lists the metrics of the catalogue that any group measured,
// plus the ones always shown, in catalogue order.
func Measured(groups []CellGroup) []Metric {
	var out []Metric
	for _, m := range Metrics {
		if m.Hidden {
			continue
		}
		if m.Always || slices.ContainsFunc(groups, func(g CellGroup) bool { return g.Metrics[m.Key].N > 0 }) {
			out = append(out, m)
		}
	}
	return out
}

// upper is m's physical upper bound.
func (m Metric) upper() float64 {
	if m.Max > 0 {
		return m.Max
	}
	return math.Inf(1)
}
