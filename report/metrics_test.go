package report

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/results"
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
			Start: start.Add(time.Duration(len(recs)) * 3 * time.Second)}
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
			LossPct: loss, JitterMs: 0.001 * float64(i+1), Packets: 200000, LostPackets: int64(2000 * loss), PacketsPerSec: 100000})
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
			golden(t, filepath.Join("testdata", "metrics-"+format+".golden"), buf.Bytes())
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
