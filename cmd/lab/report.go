package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/report"
)

var reportSummary = "Render a run's results (" + strings.Join(report.Formats, ", ") + ")" // every format: lab -h

// runReport is `lab report [RUN…]`: one operation call
// (operation.Operation.Report) rendered through report's view.
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
	return g.op().Report(operation.ReportArgs{Vars: v.opVars(), Runs: fs.Args(), Format: f, Color: *out == "" && useColor(g, g.stdout)},
		view.Report{Stdout: g.stdout, Stderr: g.stderr, Out: *out})
}

// checkBinaryToTerminal refuses to write a binary format (png,
// timeseries-png) to a terminal, where it would only garble the screen.
func checkBinaryToTerminal(format, out string, stdoutIsTerminal bool) error {
	if report.Binary(format) && out == "" && stdoutIsTerminal {
		return fmt.Errorf("the %s format is binary (a PNG) and standard output is a terminal: write it to a file with -o FILE.png (or redirect it)", format)
	}
	return nil
}
