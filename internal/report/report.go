// Package report renders a run's summarised results for people (a terminal
// table, a markdown table to paste into a mailing-list post) and for
// programs (CSV, JSON), and plots (SVG, PNG: throughput with 95 % CI
// whiskers beside system-wide CPU, and a panel for every other metric a
// run measured — latency percentiles and CDF, transactions/s, UDP loss,
// jitter and packets/s, retransmits, cycles per bit — the repeats as
// dots; each cell's throughput over time, one line per repeat; a
// comparison's base and test overlaid per cell).
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Formats lists the formats Render knows, in the order help text shows them.
var Formats = []string{"table", "markdown", "csv", "csv-runs", "json", "svg", "png", "timeseries", "timeseries-png", "html", "intervals-csv"}

// Options tune rendering.
type Options struct {
	// Color allows ANSI colour in the table format (never in the others).
	Color bool
	// Records are the run's records, for the formats that show repeats
	// (csv-runs); the others read the groups only.
	Records []results.Record
	// Outcomes are the spec's expectations checked against the run, for
	// the html format; ChecksNote says why there are none.
	Outcomes   []verdicts.Outcome
	ChecksNote string
}

// Render writes the groups of run info in the named format.
func Render(w io.Writer, format string, info results.RunInfo, groups []results.CellGroup, opt Options) error {
	switch format {
	case "table":
		return renderTable(w, info, groups, opt)
	case "markdown", "md":
		return renderMarkdown(w, info, groups)
	case "csv":
		return renderCSV(w, groups)
	case "csv-runs":
		return renderCSVRuns(w, opt.Records)
	case "intervals-csv":
		return renderIntervalsCSV(w, opt.Records)
	case "json":
		return renderJSON(w, groups)
	case "svg", "png":
		return renderPlot(w, format, info, groups)
	case "html":
		return renderHTML(w, info, groups, opt)
	case "timeseries":
		return renderTimeSeries(w, "svg", groups)
	case "timeseries-png":
		return renderTimeSeries(w, "png", groups)
	default:
		return fmt.Errorf("unknown report format %q (known: %s)", format, strings.Join(Formats, ", "))
	}
}
