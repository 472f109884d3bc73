package operation

import (
	"fmt"

	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// ReportArgs are report's arguments, parsed (and checked: the format,
// several runs only in html) from its flags by the CLI.
type ReportArgs struct {
	// Vars load the spec whose expect blocks an html report judges.
	Vars Vars
	// Runs are the runs reported (ids or aliases; none: the latest).
	Runs []string
	// Format is the report's format (report.Formats).
	Format string
	// Color colours the report (a table on a terminal).
	Color bool
}

// ReportView renders the runs' report.
type ReportView interface {
	// Report renders runs (ids: their resolved ids) in format.
	Report(format string, ids []string, runs []report.RunReport) error
}

// Report is `lab report [RUN…]`: it resolves and loads the runs (default
// the latest), with an html report judges each against the spec's
// expect blocks, and renders them through the view.
func (o *Operation) Report(args ReportArgs, view ReportView) error {
	rs := o.ResultStore()
	ids := append([]string(nil), args.Runs...)
	if len(ids) == 0 {
		id, err := rs.Latest()
		if err != nil {
			return fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
		ids = []string{id}
	}
	var runs []report.RunReport // several: RenderRuns overlays them in html, refuses other formats
	for i, arg := range ids {
		id, err := rs.Resolve(arg) // latest, previous: as show, check and compare
		if err != nil {
			return err
		}
		ids[i] = id
		info, recs, err := rs.Load(id)
		if err != nil {
			return err
		}
		r := report.RunReport{Info: info, Groups: results.Group(recs), Options: report.Options{Records: recs, Color: args.Color}}
		if args.Format == "html" {
			r.Options.Outcomes, r.Options.ChecksNote = o.ReportOutcomes(args.Vars, info, r.Groups)
		}
		runs = append(runs, r)
	}
	return view.Report(args.Format, ids, runs)
}
