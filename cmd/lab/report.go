package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

func runReport(g *globals, args []string) error {
	formats := strings.Join(report.Formats, "|")
	fs := newFlags(g, "report", "report [-format "+formats+"] [-o FILE] [RUN]")
	format := fs.String("format", "", "output `format`: "+strings.Join(report.Formats, ", ")+
		" (svg and png plot throughput with 95 % CI whiskers beside CPU; csv-runs: one row per run, every repeat;"+
		" html: one self-contained page with verdicts; default: from -o's extension, else table)")
	out := fs.String("o", "", "write the report to `FILE` instead of standard output")
	var v varFlags
	v.register(fs)
	if err := parseFlags(fs, args, optionalArg("a run id")); err != nil {
		return err
	}
	f, err := report.OutputFormat(*format, *out)
	if err != nil {
		return err
	}
	if err := checkBinaryToTerminal(f, *out, isTerminal(g.stdout)); err != nil {
		return err
	}
	rs := g.op().ResultStore()
	runID := fs.Arg(0)
	if runID == "" {
		if runID, err = rs.Latest(); err != nil {
			return fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
	} else if runID, err = rs.Resolve(runID); err != nil { // latest, previous: as show, check and compare
		return err
	}
	info, recs, err := rs.Load(runID)
	if err != nil {
		return err
	}
	groups := results.Group(recs)
	opt := report.Options{Records: recs}
	if f == "html" {
		opt.Outcomes, opt.ChecksNote = g.op().ReportOutcomes(v.opVars(), info, groups)
	}
	if *out == "" {
		opt.Color = useColor(g, g.stdout)
		return report.Render(g.stdout, f, info, groups, opt)
	}
	var b bytes.Buffer
	if err := report.Render(&b, f, info, groups, opt); err != nil {
		return err
	}
	if err := atomicfile.Write(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	where := *out
	if t, err := atomicfile.Resolve(*out); err == nil && t.Linked && t.Kind == atomicfile.Regular {
		where = fmt.Sprintf("%s (the target of the symlink %s)", t.Path, *out)
	}
	fmt.Fprintf(g.stderr, "Wrote the %s report of run %s to %s.\n", f, info.ID, where)
	return nil
}

// checkBinaryToTerminal refuses to write a binary format (png,
// timeseries-png) to a terminal, where it would only garble the screen.
func checkBinaryToTerminal(format, out string, stdoutIsTerminal bool) error {
	if report.Binary(format) && out == "" && stdoutIsTerminal {
		return fmt.Errorf("the %s format is binary (a PNG) and standard output is a terminal: write it to a file with -o FILE.png (or redirect it)", format)
	}
	return nil
}
