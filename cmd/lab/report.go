package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

var reportSummary = "Render a run's results (" + strings.Join(report.Formats, ", ") + ")" // every format: lab -h

func runReport(g *globals, args []string) error {
	formats := strings.Join(report.Formats, "|")
	fs := newFlags(g, "report", "report [-format "+formats+"] [-o FILE] [RUN…]")
	format := fs.String("format", "", "output `format`: "+strings.Join(report.Formats, ", ")+
		" (svg and png plot throughput with 95 % CI whiskers, CPU and every other metric the cells measured; csv-runs: one row per run, every repeat;"+
		" html: one self-contained page with verdicts, several RUNs overlaid; default: from -o's extension, else table)")
	out := fs.String("o", "", "write the report to `FILE` instead of standard output")
	var v varFlags
	v.register(fs)
	if err := parseFlags(fs, args, arity{0, math.MaxInt, "run ids (several: -format html overlays them)"}); err != nil {
		return err
	}
	f, err := report.OutputFormat(*format, *out)
	if err != nil {
		return err
	}
	if n := fs.NArg(); n > 1 && f != "html" { // a usage error, before any run is read
		fmt.Fprintf(fs.Output(), "Error: several runs (%d: %s) with -format %s: only -format html overlays runs; use lab compare A B for two\n\n", n, strings.Join(fs.Args(), " "), f)
		fs.Usage()
		return reported{exitError}
	}
	if err := checkBinaryToTerminal(f, *out, isTerminal(g.stdout)); err != nil {
		return err
	}
	rs := g.op().ResultStore()
	ids := fs.Args()
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
		r := report.RunReport{Info: info, Groups: results.Group(recs), Options: report.Options{Records: recs, Color: *out == "" && useColor(g, g.stdout)}}
		if f == "html" {
			r.Options.Outcomes, r.Options.ChecksNote = g.op().ReportOutcomes(v.opVars(), info, r.Groups)
		}
		runs = append(runs, r)
	}
	o := atomicfile.NewOutput(*out, g.stdout)
	if err := report.RenderRuns(o, f, runs); err != nil {
		return err
	}
	where, err := o.Commit()
	if err != nil || where == "" {
		return err
	}
	fmt.Fprintf(g.stderr, "Wrote the %s report of run %s to %s.\n", f, strings.Join(ids, ", run "), where)
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
