package report

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// summaryTable is the people-facing table shared by the table and markdown
// formats: header, which columns hold numbers (right-aligned), and rows.
type summaryTable struct {
	header  []string
	numeric []bool
	rows    [][]string
}

// dimensions returns the matrix dimension names of the groups, in
// first-seen order.
func dimensions(groups []results.CellGroup) []string {
	return dimensionsOf(groups, func(g results.CellGroup) []results.CellValue { return g.Cell })
}

// dimensionsOf returns the dimension names of the cells of items (groups
// or records), in first-seen order.
func dimensionsOf[T any](items []T, cell func(T) []results.CellValue) []string {
	var dims []string
	for _, it := range items {
		for _, c := range cell(it) {
			if !slices.Contains(dims, c.Name) {
				dims = append(dims, c.Name)
			}
		}
	}
	return dims
}

// cellValue is the value of dimension name in g ("" when g lacks it).
func cellValue(g results.CellGroup, name string) string {
	for _, c := range g.Cell {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func buildTable(groups []results.CellGroup) summaryTable {
	dims := dimensions(groups)
	t := summaryTable{header: append([]string{"experiment", "pair"}, dims...)}
	t.numeric = make([]bool, len(t.header))
	t.header = append(t.header, "n")
	t.numeric = append(t.numeric, true)
	metrics := results.Measured(groups)
	scales := make([]unitScale, len(metrics))
	for i, m := range metrics {
		scales[i] = columnScale(m, groups)
		t.header = append(t.header, columnLabel(m, scales[i]))
		t.numeric = append(t.numeric, true)
	}
	t.header = append(t.header, "note")
	t.numeric = append(t.numeric, false)
	for _, g := range groups {
		row := []string{g.Experiment, g.Pair}
		for _, d := range dims {
			row = append(row, cellValue(g, d))
		}
		row = append(row, strconv.Itoa(g.N))
		for i, m := range metrics {
			row = append(row, columnText(m, g.Metric(m.Key), scales[i]))
		}
		row = append(row, note(g))
		t.rows = append(t.rows, row)
	}
	return t
}

// metricText renders one metric of a cell for the table: throughput as
// mean ± CI half-width (throughput), every other metric as its mean, "-"
// when no run measured it.
func metricText(m results.Metric, s results.Summary) string {
	if m.Key == results.MetricThroughput {
		return throughput(s)
	}
	return mean(s.Scale(m.Scale), m.Decimals)
}

// columnScale is the unit a table column shows a metric in (scaleFor):
// Mb/s when every cell's throughput is below 1 Gb/s, µs for jitter below
// 1 ms, ms for latencies of 10 ms and more.
func columnScale(m results.Metric, groups []results.CellGroup) unitScale {
	return scaleFor(m, topRecorded(m, groups))
}

// columnLabel is a column's header in the unit it shows: the catalogue's
// label with its unit replaced.
func columnLabel(m results.Metric, us unitScale) string {
	if us.unit == m.Unit || m.Unit == "" {
		return m.Label
	}
	if short := strings.TrimSuffix(m.Label, " "+m.Unit); short != m.Label {
		return short + " " + us.unit
	}
	return m.Label + " (" + us.unit + ")"
}

// columnText is metricText in the column's unit: a rescaled column keeps
// one decimal (Mb/s, µs) or two (ms); a rate below 0.1 Gb/s in a Gb/s
// column (other cells reach 1 Gb/s) is in Mb/s and says so.
func columnText(m results.Metric, s results.Summary, us unitScale) string {
	if small := m.Key == results.MetricThroughput && us.unit == "Gb/s" && s.N > 0; small && s.Mean < 0.1e9 {
		return rate(s, 1e-6, 1) + " Mb/s" // "9.98 ± 0.01 Mb/s" beside 1.26 Gb/s, not "0.01 ± 0.00"
	}
	if us.unit == m.Unit {
		return metricText(m, s)
	}
	decimals := columnDecimals(m, us)
	if m.Key == results.MetricThroughput {
		return rate(s, us.factor, decimals)
	}
	return mean(s.Scale(us.factor), decimals)
}

// columnDecimals are the decimals of a column in its unit: the
// catalogue's, one for a column rescaled to Mb/s or µs, two for ms.
func columnDecimals(m results.Metric, us unitScale) int {
	switch {
	case us.unit == m.Unit:
		return m.Decimals
	case us.unit == "ms":
		return 2
	}
	return 1
}

// throughput renders a throughput summary in Gb/s: "12.41 ± 0.83" with a
// confidence interval, "12.41" for a single run, "-" for none.
func throughput(s results.Summary) string { return rate(s, 1e-9, 2) }

// rate renders a throughput summary × factor with decimals: "12.41 ±
// 0.83" with a confidence interval, "12.41" for a single run, "-" for none.
func rate(s results.Summary, factor float64, decimals int) string {
	if s.N == 0 {
		return "-"
	}
	g := s.Scale(factor)
	if !g.Known {
		return strconv.FormatFloat(g.Mean, 'f', decimals, 64)
	}
	return strconv.FormatFloat(g.Mean, 'f', decimals, 64) + " ± " + strconv.FormatFloat(g.HalfWidth(), 'f', decimals, 64)
}

// mean renders a summary's mean rounded to at most decimals places without
// trailing zeros ("3", "2.5"), or "-" for no runs.
func mean(s results.Summary, decimals int) string {
	if s.N == 0 {
		return "-"
	}
	return number(s.Mean, decimals)
}

// number rounds v to at most decimals places and drops trailing zeros.
func number(v float64, decimals int) string {
	p := math.Pow10(decimals)
	r := math.Round(v*p) / p
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// noisy reports whether a cell's primary metric is noisy
// (results.Summary.Noisy: 95 % CI half-width above 10 % of the mean). A
// latency cell — its runs measured round-trip latency: iperf 2's
// bounceback, netperf's TCP_RR, sockperf's ping-pong, whose throughput is
// only a by-product of small messages — is judged on latency_mean_us;
// every other cell on its throughput (for UDP the received rate).
func noisy(g results.CellGroup) bool {
	if l := g.Metric(results.MetricLatencyMean); l.N > 0 {
		return l.Noisy()
	}
	return g.ThroughputBps.Noisy()
}

// note is the note column: "noisy", "2 failed", "1 missing", "1
// disturbed" (CPU steal: no verdict reads the cell), "1 CPU shared" (the
// system-wide CPU was mostly other work: results.SharedCPU), "throughput_bps
// overflows float64" (no interval: results.Summary.Overflow), or several.
func note(g results.CellGroup) string {
	var notes []string
	if noisy(g) {
		notes = append(notes, "noisy")
	}
	if g.Failed > 0 {
		notes = append(notes, strconv.Itoa(g.Failed)+" failed")
	}
	if g.Missing > 0 {
		notes = append(notes, strconv.Itoa(g.Missing)+" missing")
	}
	if g.Disturbed > 0 {
		notes = append(notes, strconv.Itoa(g.Disturbed)+" disturbed")
	}
	if g.SharedCPU > 0 {
		notes = append(notes, strconv.Itoa(g.SharedCPU)+" CPU shared")
	}
	for _, k := range slices.Sorted(maps.Keys(g.Metrics)) {
		if g.Metrics[k].Overflow {
			notes = append(notes, k+" overflows float64")
		}
	}
	return strings.Join(notes, ", ")
}

// quantileNote says how coarse the latency quantiles are when a run read
// them from a histogram (iperf 2's 100 µs bins), "" otherwise.
func quantileNote(groups []results.CellGroup) string {
	res := 0.0
	for _, g := range groups {
		for _, r := range g.Repeats {
			if l := r.Metrics.Latency; l != nil {
				res = math.Max(res, l.ResolutionUs)
			}
		}
	}
	if res == 0 {
		return ""
	}
	return "latency p50/p90/p99: upper edges of the tool's " + number(res, 1) +
		" µs histogram bins (each quantile is at most that; the mean is not binned)"
}

// repeatText is one run's value of m in its column's unit, with a
// decimal more than the summary; a rate below 0.1 Gb/s in a Gb/s column
// in Mb/s, saying so.
func repeatText(m results.Metric, v float64, us unitScale) string {
	if m.Key == results.MetricThroughput && us.unit == "Gb/s" && v < 0.1e9 {
		return number(v*1e-6, 2) + " Mb/s"
	}
	return number(v*us.factor, columnDecimals(m, us)+1)
}
