package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// renderCSV writes one row per group with plain numbers (no "±"), for
// spreadsheets and plotting scripts. Throughput is in Gb/s, CPU in percent;
// every other metric a run measured (latency, loss, router CPU, …) follows
// as KEY_mean, KEY_ci95_low, KEY_ci95_high in the unit its key names. The
// last columns, missing and disturbed, count the cell's missing runs and
// its runs marked disturbed (CPU steal: no verdict reads such a cell).
func renderCSV(w io.Writer, groups []results.CellGroup) error {
	dims := dimensions(groups)
	cw := csv.NewWriter(w)
	header := append([]string{"experiment", "pair"}, dims...)
	header = append(header, "n", "failed",
		"throughput_gbps_mean", "throughput_gbps_stdev", "throughput_gbps_ci95_low", "throughput_gbps_ci95_high",
		"throughput_gbps_min", "throughput_gbps_max",
		"retransmits_mean", "server_cpu_pct_mean", "client_cpu_pct_mean", "noisy")
	var extra []results.Metric
	for _, m := range results.Measured(groups) {
		if !m.Always {
			extra = append(extra, m)
			header = append(header, m.Key+"_mean", m.Key+"_ci95_low", m.Key+"_ci95_high")
		}
	}
	header = append(header, "missing", "disturbed")
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, g := range groups {
		row := []string{g.Experiment, g.Pair}
		for _, d := range dims {
			row = append(row, cellValue(g, d))
		}
		tp := g.ThroughputBps.Scale(1e-9)
		num := func(v float64, known bool) string {
			if !known {
				return ""
			}
			return number(v, 4)
		}
		has, ci := g.N > 0, g.ThroughputBps.Known
		row = append(row, strconv.Itoa(g.N), strconv.Itoa(g.Failed),
			num(tp.Mean, has), num(tp.Stdev, ci), num(tp.CI95Low, ci), num(tp.CI95High, ci),
			num(tp.Min, has), num(tp.Max, has),
			num(g.Retransmits.Mean, has), num(g.ServerCPU.Mean, has), num(g.ClientCPU.Mean, has),
			strconv.FormatBool(noisy(g)))
		for _, m := range extra {
			ms := g.Metric(m.Key)
			row = append(row, num(ms.Mean, ms.N > 0), num(ms.CI95Low, ms.Known), num(ms.CI95High, ms.Known))
		}
		row = append(row, strconv.Itoa(g.Missing), strconv.Itoa(g.Disturbed))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("render csv: %w", err)
	}
	return nil
}

// renderJSON writes the groups as an indented JSON array (summaries in the
// records' units: bits per second, percent).
func renderJSON(w io.Writer, groups []results.CellGroup) error {
	if groups == nil {
		groups = []results.CellGroup{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(groups)
}

// renderCSVRuns writes one row per run record (warm-ups and failed runs
// included, marked), with every metric any run measured in the unit its
// key names (throughput_bps in bits per second): the repeats behind each
// cell of the summary, for analyses of one's own.
func renderCSVRuns(w io.Writer, recs []results.Record) error {
	dims := cellDims(recs)
	var metrics []results.Metric
	for _, m := range results.Metrics {
		if slices.ContainsFunc(recs, func(r results.Record) bool { _, ok := m.Value(r); return ok && r.Error == "" }) {
			metrics = append(metrics, m)
		}
	}
	cw := csv.NewWriter(w)
	header := append([]string{"run_id", "experiment", "pair"}, dims...)
	header = append(header, "repeat", "warmup", "start", "error")
	for _, m := range metrics {
		header = append(header, m.Key)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range recs {
		row := append([]string{r.RunID, r.Experiment, r.Pair}, cellValues(r, dims)...)
		start := ""
		if !r.Start.IsZero() {
			start = r.Start.UTC().Format(time.RFC3339)
		}
		row = append(row, strconv.Itoa(r.Repeat), strconv.FormatBool(r.Warmup), start, r.Error)
		for _, m := range metrics {
			v, ok := m.Value(r)
			if !ok || r.Error != "" {
				row = append(row, "")
				continue
			}
			row = append(row, strconv.FormatFloat(v, 'g', 10, 64))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("render csv-runs: %w", err)
	}
	return nil
}
