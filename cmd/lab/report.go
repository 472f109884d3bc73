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
		" (csv-runs: one row per run, every repeat; html: one self-contained page with verdicts)")
	var v varFlags
	v.register(fs)
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
	groups := results.Group(recs)
	opt := report.Options{Color: isTerminal(g.stdout), Records: recs}
	if *format == "html" {
		opt.Outcomes, opt.ChecksNote = reportOutcomes(g, v, info, groups)
	}
	return report.Render(g.stdout, *format, info, groups, opt)
}

// reportOutcomes checks the spec's expect blocks against a run for the
// HTML report, as `lab check` does; when the spec cannot be loaded (or
// has no expect blocks) the note says so instead of failing the report.
func reportOutcomes(g *globals, v varFlags, info results.RunInfo, groups []results.CellGroup) ([]results.Outcome, string) {
	lab, err := loadLab(g, v)
	if err != nil {
		return nil, "expectations not checked: the spec did not load (" + firstLine(err.Error()) + ")"
	}
	if info.Lab != "" && info.Lab != lab.Name {
		return nil, fmt.Sprintf("expectations not checked: run %s belongs to lab %q, the spec is lab %q", info.ID, info.Lab, lab.Name)
	}
	exps, err := expectations(lab)
	if err != nil {
		return nil, "expectations not checked: " + err.Error()
	}
	if len(exps) == 0 {
		return nil, "the spec has no expect blocks"
	}
	outs := results.Evaluate(groups, exps)
	if info.Status != results.StatusComplete && info.Status != "" {
		results.MarkIncomplete(outs, fmt.Sprintf("run %s ended %s, so cells may lack runs", info.ID, info.Status))
	}
	note := ""
	if info.SpecHash != "" && info.SpecHash != lab.Hash {
		note = "the spec changed since this run; expectations are read from the current spec"
	}
	return outs, note
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
