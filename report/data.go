package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/lab-bench/lab/results"
)

// renderCSV writes one row per group with plain numbers (no "±"), for
// spreadsheets and plotting scripts. Throughput is in Gb/s, CPU in percent.
func renderCSV(w io.Writer, groups []results.CellGroup) error {
	dims := dimensions(groups)
	cw := csv.NewWriter(w)
	header := append([]string{"experiment", "pair"}, dims...)
	header = append(header, "n", "failed",
		"throughput_gbps_mean", "throughput_gbps_stdev", "throughput_gbps_ci95_low", "throughput_gbps_ci95_high",
		"throughput_gbps_min", "throughput_gbps_max",
		"retransmits_mean", "server_cpu_pct_mean", "client_cpu_pct_mean", "noisy")
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
			strconv.FormatBool(noisy(g.ThroughputBps)))
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
