package results

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// CellGroup is the summary of one cell of one pair in one experiment: the
// successful, non-warm-up runs of that cell.
type CellGroup struct {
	Experiment string      `json:"experiment"`
	Pair       string      `json:"pair"`
	Cell       []CellValue `json:"cell"`
	CellKey    string      `json:"cell_key"`
	// N is the number of successful runs summarised; Failed counts the
	// runs that ended in an error (a group with N = 0 and Failed > 0 is
	// kept, so that a cell that always failed still shows up).
	N      int `json:"n"`
	Failed int `json:"failed,omitempty"`
	// Missing counts repeats absent from the record files: gaps in the
	// cell's repeat numbers below the highest one recorded or planned
	// (RunInfo.Planned) — a run killed between repeats, a record file
	// lost, the last repeat's included.
	Missing int `json:"missing,omitempty"`
	// Disturbed counts the summarised runs marked disturbed (CPU steal:
	// see Record.Disturbed).
	Disturbed int `json:"disturbed,omitempty"`
	// SharedCPU counts the summarised runs whose system-wide CPU on an end
	// was mostly other work than the benchmark's (SharedCPU).
	SharedCPU int `json:"shared_cpu,omitempty"`
	// Sequential is the design that stopped the cell on its verdict
	// (PlannedCell.Sequential); nil for a fixed number of repeats.
	Sequential *SeqDesign `json:"sequential,omitempty"`
	// ThroughputBps is the receiver's throughput in bits per second.
	ThroughputBps Summary `json:"throughput_bps"`
	Retransmits   Summary `json:"retransmits"`
	// RetransmitCounts are the retransmit counts as totals, what the count
	// rule reads (checkCount): pooled applies keep every run's count here.
	RetransmitCounts CountSample `json:"-"`
	// ServerCPU and ClientCPU are system-wide busy percentages.
	ServerCPU Summary `json:"server_cpu_pct"`
	ClientCPU Summary `json:"client_cpu_pct"`
	// Kernels, ToolVersions and Hosts are the distinct provenance values
	// of the group's runs, in first-seen order.
	Kernels      []string `json:"kernels,omitempty"`
	ToolVersions []string `json:"tool_versions,omitempty"`
	Hosts        []string `json:"hosts,omitempty"`
	// Drivers are the NIC drivers observed; Offloads the distinct observed
	// offload states per end ("server: gro=on gso=off …").
	Drivers  []string `json:"drivers,omitempty"`
	Offloads []string `json:"offloads,omitempty"`
	// Rings are the distinct observed NIC ring sizes per end ("server:
	// rx=1024/4096 tx=512/4096", current/maximum), when a run asked for them.
	Rings []string `json:"rings,omitempty"`
	// IPVersions are the distinct IP versions of runs over IPv6, with the
	// addresses they ran between ("IPv6 fd…::2 -> fd…::1"; IPVersionText):
	// empty when every run went over IPv4.
	IPVersions []string `json:"ip_versions,omitempty"`
	// ServerCyclesPerBit and ClientCyclesPerBit are CPU cycles per bit of
	// throughput on each end (seed 000's "Hz per bit/s"), over the runs
	// where the CPU clock is known (N = 0 otherwise).
	ServerCyclesPerBit Summary `json:"server_cycles_per_bit"`
	ClientCyclesPerBit Summary `json:"client_cycles_per_bit"`
	// Metrics holds the summary of every metric of the catalogue (Metrics)
	// that a run of the group measured, by key. The named summaries above
	// are the same values, kept for readers of earlier JSON reports.
	Metrics map[string]Summary `json:"metrics,omitempty"`
	// Repeats are the group's successful runs, in repeat order: what
	// reports drill down to (not in JSON: the records hold them).
	Repeats []Record `json:"-"`
	// Aggregate is set on each flow of a concurrent cell (an experiment
	// with concurrent = true): the sum of all the cell's flows, shared by
	// their groups. Nil for a cell whose runs ran alone.
	Aggregate *Aggregate `json:"aggregate,omitempty"`
}

// Group groups records by experiment, pair and cell key, in first-seen
// order, and summarises each group. Warm-up runs are left out; failed runs
// and gaps in the repeat numbers are only counted. Every metric of the
// catalogue (Metrics) a run measured is summarised, clamped to the
// quantity's physical range (Summary.Clamp): ≥ 0, percentages ≤ 100.
// The flows of a concurrent cell share the sum of their throughputs
// (CellGroup.Aggregate).
func Group(records []Record) []CellGroup {
	type key struct{ exp, pair, cell string }
	type acc struct {
		group     CellGroup
		values    map[string][]float64
		n         int
		repeats   map[int]bool
		maxRepeat int
	}
	index := map[key]int{}
	var accs []*acc
	for _, r := range records {
		if r.Warmup {
			continue
		}
		pair := groupPair(r)
		k := key{r.Experiment, pair, r.CellKey}
		i, ok := index[k]
		if !ok {
			i = len(accs)
			index[k] = i
			accs = append(accs, &acc{group: CellGroup{
				Experiment: r.Experiment, Pair: pair, Cell: r.Cell, CellKey: r.CellKey,
			}, repeats: map[int]bool{}, values: map[string][]float64{}})
		}
		a := accs[i]
		a.repeats[r.Repeat] = true
		if r.seq != nil {
			a.group.Sequential = r.seq
		}
		a.maxRepeat = max(a.maxRepeat, r.Repeat, r.planned)
		if r.Error != "" {
			a.group.Failed++
			continue
		}
		if r.Disturbed != "" {
			a.group.Disturbed++
		}
		if len(SharedCPU(r)) > 0 {
			a.group.SharedCPU++
		}
		m := r.Metrics
		a.n++
		if r.pooled != nil {
			a.group.RetransmitCounts.merge(*r.pooled)
		} else {
			a.group.RetransmitCounts.Add(float64(m.Retransmits))
		}
		for _, mt := range Metrics {
			if v, ok := mt.Value(r); ok {
				a.values[mt.Key] = append(a.values[mt.Key], v)
			}
		}
		a.group.Repeats = append(a.group.Repeats, r)
		p := r.Provenance
		a.group.Kernels = addDistinct(a.group.Kernels, p.ServerKernel, p.ClientKernel)
		tool := p.ToolVersion
		if tool == "" {
			tool = m.Version
		}
		a.group.ToolVersions = addDistinct(a.group.ToolVersions, tool)
		a.group.Hosts = addDistinct(a.group.Hosts, p.Host)
		o := r.Observed
		a.group.Drivers = addDistinct(a.group.Drivers, o.Server.Driver, o.Client.Driver)
		a.group.Offloads = addDistinct(a.group.Offloads, offloadText("server", o.Server.Offloads), offloadText("client", o.Client.Offloads))
		a.group.Rings = addDistinct(a.group.Rings, RingText("server", o.Server.Rings), RingText("client", o.Client.Rings))
		a.group.IPVersions = addDistinct(a.group.IPVersions, IPVersionText(p))
	}
	groups := make([]CellGroup, len(accs))
	for i, a := range accs {
		g := a.group
		g.N = a.n
		g.Missing = max(0, a.maxRepeat-len(a.repeats))
		slices.SortStableFunc(g.Repeats, func(x, y Record) int { return x.Repeat - y.Repeat })
		for _, mt := range Metrics {
			if vs := a.values[mt.Key]; len(vs) > 0 {
				if g.Metrics == nil {
					g.Metrics = map[string]Summary{}
				}
				g.Metrics[mt.Key] = Summarize(vs).Clamp(0, mt.upper())
			}
		}
		g.ThroughputBps = g.Metrics[MetricThroughput]
		g.Retransmits = g.Metrics[MetricRetransmits]
		g.ServerCPU = g.Metrics[MetricServerCPU]
		g.ClientCPU = g.Metrics[MetricClientCPU]
		g.ServerCyclesPerBit = g.Metrics[MetricServerCPB]
		g.ClientCyclesPerBit = g.Metrics[MetricClientCPB]
		groups[i] = g
	}
	attachAggregates(groups)
	return groups
}

// IPVersionText describes the IP version a run over IPv6 went over and
// between which addresses, client to server ("IPv6 (dual stack) fd…::2 ->
// fd…::1"); "" for a run over IPv4.
func IPVersionText(p Provenance) string {
	v := ""
	switch p.IPVersion {
	case "":
		return ""
	case "dual":
		v = "IPv6 (dual stack)"
	default:
		v = "IPv" + p.IPVersion
	}
	return v + " " + p.ClientAddr + " -> " + p.ServerAddr
}

// addDistinct appends the non-empty values not yet in list.
func addDistinct(list []string, values ...string) []string {
	for _, v := range values {
		if v != "" && !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// cyclesPerBit is one end's CPU cycles per bit of a run: from the
// hypervisor when it reports the MHz used (usage MHz already counts busy
// cycles over all vCPUs), else from the in-guest busy share × CPUs × clock.
func cyclesPerBit(r Record, server bool) float64 {
	tp := r.Metrics.ThroughputBps
	if tp <= 0 {
		return 0
	}
	if h := r.HostCPU; h != nil {
		end := h.Client
		if server {
			end = h.Server
		}
		if end.MHz > 0 {
			return end.MHz * 1e6 / tp
		}
	}
	u := r.Metrics.ClientCPU
	if server {
		u = r.Metrics.ServerCPU
	}
	return bench.CyclesPerBit(u, tp)
}

// offloadText renders observed offloads as "end: k=v k=v" (sorted).
func offloadText(end string, m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for _, k := range guest.SortedKeys(m) {
		parts = append(parts, k+"="+strings.ReplaceAll(m[k], " ", ""))
	}
	return end + ": " + strings.Join(parts, " ")
}

// RingText renders observed ring sizes as "end: rx=1024/4096
// tx=512/4096" (current/maximum; the maximum left out when not reported),
// "" when none were read.
func RingText(end string, r *guest.Rings) string {
	if r == nil {
		return ""
	}
	one := func(name string, cur, max int) string {
		if max > 0 {
			return fmt.Sprintf("%s=%d/%d", name, cur, max)
		}
		return fmt.Sprintf("%s=%d", name, cur)
	}
	return end + ": " + one("rx", r.RX, r.RXMax) + " " + one("tx", r.TX, r.TXMax)
}

// PoolRuns turns the records of several applies (by run id) into one
// sample per cell in which each apply's mean is one observation: a
// synthetic record per apply and cell, numbered as that apply's repeat.
// Counts (retransmits) are the exception: the synthetic record carries
// the apply's total count and number of runs, so the count rule judges
// every run's count, not a rounded mean per apply.
// Checked this way, a verdict's interval includes the apply-to-apply
// variance (re-provisioned machines, another hour's neighbours) that the
// repeats inside one apply cannot show. Failed runs and cells stay failed.
func PoolRuns(runs map[string][]Record) []Record {
	ids := slices.Sorted(maps.Keys(runs))
	var out []Record
	for i, id := range ids {
		for _, g := range Group(runs[id]) {
			first := firstRecord(runs[id], g)
			rec := Record{Schema: Schema, RunID: id, Lab: first.Lab, Experiment: g.Experiment, Pair: g.Pair, Cell: g.Cell,
				CellKey: g.CellKey, CellIndex: first.CellIndex, Repeat: i + 1, Intent: first.Intent, Provenance: first.Provenance}
			if g.N == 0 || g.Failed > 0 || g.Missing > 0 {
				rec.Error = fmt.Sprintf("run %s: %d of the cell's runs failed, %d missing", id, g.Failed, g.Missing)
				out = append(out, rec)
				continue
			}
			if g.Disturbed > 0 {
				// The noise guard carries over: the apply's observation is disturbed.
				rec.Disturbed = fmt.Sprintf("run %s: %d of the cell's %d runs disturbed", id, g.Disturbed, g.N)
			}
			rec.Metrics.ThroughputBps = g.ThroughputBps.Mean
			rec.Metrics.SenderBps = g.Metric(MetricSenderThroughput).Mean
			// The rounded mean is what the pooled summary shows; the count
			// rule reads every run's count from pooled, unrounded.
			rec.Metrics.Retransmits = int64(math.Round(g.Retransmits.Mean))
			counts := g.RetransmitCounts
			rec.pooled = &counts
			rec.Metrics.ServerCPU.Busy, rec.Metrics.ClientCPU.Busy = g.ServerCPU.Mean, g.ClientCPU.Mean
			out = append(out, rec)
		}
	}
	return out
}

func firstRecord(recs []Record, g CellGroup) Record {
	for _, r := range recs {
		if r.Experiment == g.Experiment && r.Pair == g.Pair && r.CellKey == g.CellKey {
			return r
		}
	}
	return Record{}
}
