package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// fakeMetricRecords are runs measuring what throughput tests do not: a
// bounceback latency cell, a UDP cell with loss, a routed cell with the
// router's CPU, plus a warm-up and a failed run.
func fakeMetricRecords() []results.Record {
	start := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	var recs []results.Record
	add := func(exp, pair, cell string, repeat int, warm bool, err string, m bench.Sample) {
		r := results.Record{RunID: info.ID, Experiment: exp, Pair: pair, Repeat: repeat, Warmup: warm, Error: err,
			Cell: []results.CellValue{{Name: "size", Value: cell}}, CellKey: "size=" + cell, Metrics: m,
			Start: start.Add(time.Duration(len(recs)) * 3 * time.Second),
			Provenance: results.Provenance{Host: "bench1", LabVersion: "0.1.0", ServerKernel: "Linux 6.1.0-27-amd64",
				ToolVersion: "iperf 3.12", LockDigest: "sha256:5d41402abc4b2a76b9719d911017c592", ServerCPUModel: "AMD EPYC 7B13",
				ServerFirmware: "N/A"}}
		if err != "" {
			r.Metrics = bench.Sample{}
		}
		r.Intent.Bench.UDP = exp == "udp"
		recs = append(recs, r)
	}
	cpu := func(b float64) bench.CPUUsage { return bench.CPUUsage{Busy: b} }
	for i, p99 := range []float64{100, 200, 100} {
		add("rr", "veth", "100", i+1, false, "", bench.Sample{ThroughputBps: 75e6, ServerCPU: cpu(40), ClientCPU: cpu(60),
			Latency:            &bench.LatencySample{MinUs: 14, MeanUs: 20 + float64(i), P50Us: 100, P90Us: 100, P99Us: p99, MaxUs: 900, ResolutionUs: 100},
			TransactionsPerSec: 45000 - 1000*float64(i)})
	}
	add("udp", "veth", "1400", 1, true, "", bench.Sample{ThroughputBps: 9e9})
	for i, loss := range []float64{40.5, 43.9, 42.2} {
		add("udp", "veth", "1400", i+1, false, "", bench.Sample{ThroughputBps: 1.1e9 + 1e7*float64(i), ServerCPU: cpu(99), ClientCPU: cpu(98),
			LossPct: loss, JitterMs: 0.001 * float64(i+1), Packets: 200000, LostPackets: int64(2000 * loss), PacketsPerSec: 100000,
			Intervals: []bench.Interval{{Start: 0, End: 1, Bps: 1.0e9 + 1e7*float64(i)}, {Start: 1, End: 2, Bps: 1.2e9 - 1e7*float64(i)}}})
	}
	add("udp", "veth", "1400", 4, false, "iperf3: interrupt", bench.Sample{})
	for i, r := range []float64{35, 37} {
		add("fw", "routed", "128K", i+1, false, "", bench.Sample{ThroughputBps: 8e9, Retransmits: 10, ServerCPU: cpu(50), ClientCPU: cpu(70),
			RouterCPU: &bench.CPUUsage{Busy: r}})
	}
	return recs
}

func TestRenderMetricsGolden(t *testing.T) {
	recs := fakeMetricRecords()
	groups := results.Group(recs)
	for _, format := range []string{"table", "markdown", "csv", "csv-runs", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, format, info, groups, Options{Records: recs}); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "metrics-"+format+".golden"), buf.Bytes())
		})
	}
}

// TestCSVRunsMatchGroups: the per-run CSV holds every run, and the mean
// of its p99 and loss columns over a cell's successful non-warm-up runs
// is the summary's mean.
func TestCSVRunsMatchGroups(t *testing.T) {
	recs := fakeMetricRecords()
	var buf bytes.Buffer
	if err := Render(&buf, "csv-runs", info, nil, Options{Records: recs}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(recs)+1 {
		t.Fatalf("%d rows for %d records", len(rows), len(recs))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	groups := results.Group(recs)
	for _, key := range []string{results.MetricLatencyP99, results.MetricLoss, results.MetricRouterCPU, results.MetricTransactions} {
		i, ok := col[key]
		if !ok {
			t.Fatalf("no column %s in %v", key, rows[0])
		}
		sums := map[string]float64{}
		ns := map[string]int{}
		for _, row := range rows[1:] {
			if row[i] == "" || row[col["warmup"]] == "true" || row[col["error"]] != "" {
				continue
			}
			v, err := strconv.ParseFloat(row[i], 64)
			if err != nil {
				t.Fatal(err)
			}
			sums[row[col["experiment"]]] += v
			ns[row[col["experiment"]]]++
		}
		for _, g := range groups {
			s := g.Metric(key)
			if s.N != ns[g.Experiment] || (s.N > 0 && abs(s.Mean-sums[g.Experiment]/float64(ns[g.Experiment])) > 1e-9) {
				t.Errorf("%s %s: summary n=%d mean %v, CSV rows n=%d sum %v", g.Experiment, key, s.N, s.Mean, ns[g.Experiment], sums[g.Experiment])
			}
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPlotPanels: the CPU axis is marked 0-100 % (drawn to 110 % for
// the bars' labels), the router's CPU has bars,
// a series has the same colour in both panels (the server's CPU bar in
// the series colour), an n = 1 cell has no whisker, and the SVG names a
// generic font family after Liberation's.
func TestPlotPanels(t *testing.T) {
	groups := results.Group(fakeMetricRecords())
	tput, cpu, err := plots(info, groups, 9*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	ticks := cpu.Y.Tick.Marker.Ticks(cpu.Y.Min, cpu.Y.Max)
	if cpu.Y.Min != 0 || ticks[0].Label != "0" || ticks[len(ticks)-1].Label != "100" {
		t.Errorf("CPU axis %v-%v marked %v, want 0-100", cpu.Y.Min, cpu.Y.Max, ticks)
	}
	bars := func(p *panel) []*plotter.BarChart {
		var out []*plotter.BarChart
		for _, pl := range p.items {
			if bc, ok := pl.(*plotter.BarChart); ok {
				out = append(out, bc)
			}
		}
		return out
	}
	tb, cb := bars(tput), bars(cpu)
	ends := len(cpuEnds(groups))
	if ends != 3 || len(cb) != len(tb)*ends {
		t.Fatalf("%d throughput series, %d CPU bar sets, %d ends", len(tb), len(cb), ends)
	}
	for s := range tb {
		if tb[s].Color != cb[s*ends].Color {
			t.Errorf("series %d: throughput colour %v, server CPU colour %v", s, tb[s].Color, cb[s*ends].Color)
		}
		if router := cb[s*ends+2].Values; s == 2 && router[2] != 36 {
			t.Errorf("router CPU bars %v", router)
		}
	}

	one := results.Group(fakeMetricRecords()[:1])
	tput, _, err = plots(info, one, 9*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range tput.items {
		if w, ok := pl.(whiskers); ok && !math.IsNaN(w.lo[0]) {
			t.Errorf("n = 1 cell drawn with a whisker %v-%v", w.lo[0], w.hi[0])
		}
	}

	var buf bytes.Buffer
	if err := Render(&buf, "svg", info, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if svg := buf.String(); strings.Contains(svg, "font-family:Liberation Serif;") || !strings.Contains(svg, ",serif;") {
		t.Errorf("svg fonts without a generic fallback")
	}
}

// TestTimeSeries: one line per repeat of every cell with intervals;
// cells without are left out, and no intervals at all is an error.
func TestTimeSeries(t *testing.T) {
	groups := results.Group(fakeMetricRecords())
	var buf bytes.Buffer
	if err := Render(&buf, "timeseries", info, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()
	for _, want := range []string{"udp/veth size=1400", "repeat 1", "repeat 2", "repeat 3", "Gb/s"} {
		if !strings.Contains(svg, want) {
			t.Errorf("time series lacks %q", want)
		}
	}
	if strings.Contains(svg, "rr/veth") {
		t.Error("a cell without intervals was plotted")
	}
	p, err := timeSeriesPlot(groups[1])
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, pl := range p.items {
		if _, ok := pl.(*plotter.Line); ok {
			lines++
		}
	}
	if lines != 3 {
		t.Errorf("%d lines for 3 repeats", lines)
	}
	if err := Render(&buf, "timeseries-png", info, groups[:1], Options{}); err == nil {
		t.Error("no intervals: no error")
	}
}

// TestTimeSeriesWarmupApart: iperf3's omitted intervals (a pinned KVM run
// with --omit 1) are drawn dashed, on their own time base ending at 0,
// and the measured line's times only rise: once they were one line that
// went back from 1.02 s to 1.00 s at the end of the warm-up (issue 35).
func TestTimeSeriesWarmupApart(t *testing.T) {
	_, recs, err := results.Store{Dir: "../../testdata/bundles/kvm-virtio-jumbo/records"}.Load("20261201T222910Z")
	if err != nil {
		t.Fatal(err)
	}
	g := results.Group(recs)[0]
	p, err := timeSeriesPlot(g)
	if err != nil || p == nil {
		t.Fatalf("plot %v, %v", p, err)
	}
	dashed, solid := 0, 0
	for _, it := range p.items {
		l, ok := it.(*plotter.Line)
		if !ok {
			continue
		}
		if len(l.Dashes) > 0 {
			dashed++
			for _, xy := range l.XYs {
				if xy.X > 0 {
					t.Errorf("a warm-up point at %.3f s, after 0", xy.X)
				}
			}
			continue
		}
		solid++
		for i := 1; i < len(l.XYs); i++ {
			if l.XYs[i].X <= l.XYs[i-1].X {
				t.Errorf("measured line goes back from %.3f to %.3f s", l.XYs[i-1].X, l.XYs[i].X)
			}
		}
	}
	if dashed != len(g.Repeats) || solid != len(g.Repeats) {
		t.Errorf("%d dashed and %d solid lines for %d repeats", dashed, solid, len(g.Repeats))
	}
	if !strings.Contains(p.X.Label.Text, "warm-up") {
		t.Errorf("x label %q does not say where the warm-up is", p.X.Label.Text)
	}
}
