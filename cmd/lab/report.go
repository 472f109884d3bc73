package main

import (
	"fmt"
	"strings"

	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
)

func runReport(g *globals, args []string) error {
	fs := newFlags(g, "report", "report [-format "+strings.Join(report.Formats, "|")+"] [RUN]")
	format := fs.String("format", "table", "output `format`: "+strings.Join(report.Formats, ", ")+
		" (csv-runs: one row per run, every repeat)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rs := results.Store{Dir: resultsDir(g)}
	runID := fs.Arg(0)
	if runID == "" {
		var err error
		if runID, err = rs.Latest(); err != nil {
			return fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
	}
	info, recs, err := rs.Load(runID)
	if err != nil {
		return err
	}
	return report.Render(g.stdout, *format, info, results.Group(recs), report.Options{Color: isTerminal(g.stdout), Records: recs})
}
