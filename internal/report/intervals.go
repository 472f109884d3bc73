package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// intervalsHeader are the columns of the per-interval export after the
// run's identification and its cell's dimensions.
var intervalsHeader = []string{"repeat", "warmup", "tool", "host", "role", "stream", "start_s", "end_s", "bytes",
	"bits_per_second", "retransmits", "snd_cwnd_bytes", "rtt_us", "packets", "lost_packets", "jitter_ms", "omitted"}

// renderIntervalsCSV is `-format intervals-csv`: every interval of every
// run and stream, as each end's tool reported it (bench.IntervalRow), one
// row each, for pandas, R or gnuplot. Failed runs have none. A tool that
// cannot say more than its parsed time series (bench.Tool.Intervals nil)
// gives the client's sums.
func renderIntervalsCSV(w io.Writer, recs []results.Record) error {
	dims := cellDims(recs)
	cw := csv.NewWriter(w)
	if err := cw.Write(append(append([]string{"run_id", "experiment", "pair"}, dims...), intervalsHeader...)); err != nil {
		return err
	}
	for _, r := range recs {
		if r.Error != "" {
			continue
		}
		rows, err := recordIntervals(r)
		if err != nil {
			return fmt.Errorf("%s %s %s #%d: %w", r.Experiment, r.Pair, r.CellKey, r.Repeat, err)
		}
		lead := append([]string{r.RunID, r.Experiment, r.Pair}, cellValues(r, dims)...)
		lead = append(lead, strconv.Itoa(r.Repeat), strconv.FormatBool(r.Warmup), toolName(r))
		for _, in := range rows {
			row := append(slices.Clone(lead), in.Host, in.Role, in.Stream, fmtFloat(in.StartS), fmtFloat(in.EndS),
				strconv.FormatInt(in.Bytes, 10), fmtFloat(in.Bps), strconv.FormatInt(in.Retransmits, 10),
				strconv.FormatInt(in.CwndBytes, 10), fmtFloat(in.RTTUs), strconv.FormatInt(in.Packets, 10),
				strconv.FormatInt(in.LostPackets, 10), fmtFloat(in.JitterMs), strconv.FormatBool(in.Omitted))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// recordIntervals are a run's interval rows: its tool's own reading of
// both ends' raw output, or the parsed time series.
func recordIntervals(r results.Record) ([]bench.IntervalRow, error) {
	if t := bench.Lookup(r.Intent.Bench.Tool); t != nil && t.Intervals != nil && r.Raw.Client != "" {
		return t.Intervals(r.Raw)
	}
	role := "sender"
	if r.Intent.Bench.Reverse {
		role = "receiver"
	}
	return bench.SampleIntervals(r.Metrics, role), nil
}

// toolName is the run's tool as bench.Lookup reads its name ("" is the
// default tool).
func toolName(r results.Record) string {
	if t := bench.Lookup(r.Intent.Bench.Tool); t != nil {
		return t.Name
	}
	return r.Intent.Bench.Tool
}

// cellDims are the names of the records' cells' dimensions, in
// first-seen order (dimensionsOf).
func cellDims(recs []results.Record) []string {
	return dimensionsOf(recs, func(r results.Record) []results.CellValue { return r.Cell })
}

// cellValues are r's values of dims ("" where its cell has none).
func cellValues(r results.Record, dims []string) []string {
	out := make([]string, len(dims))
	for i, d := range dims {
		for _, c := range r.Cell {
			if c.Name == d {
				out[i] = c.Value
			}
		}
	}
	return out
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
