package history

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/changepoint"
	"github.com/lab-bench/lab/internal/results"
)

// Exit statuses of Main.
const (
	ExitOK     = 0
	ExitError  = 1
	ExitChange = 2 // -fail-on change: a new change point
)

// Formats are -format's values.
var Formats = []string{"text", "json", "html"}

// Env is what Main needs of lab: where the results are and where to write.
type Env struct {
	Results        string // the lab's results/ directory
	Stdout, Stderr io.Writer
}

// options are Main's flags.
type options struct {
	format, out, since, failOn, archive string
	metrics                             []string
	only                                Selection
}

// usage is the verb's synopsis.
const usage = "history [-json] [-format text|json|html] [-o FILE] [-metric KEY[,KEY…]] [-only SEL] [-since DATE] [-fail-on change] [-archive URL]"

// Main is `lab history ARGS` on the results/ directory results: it parses
// the flags, prints errors as lab does ("Error: …") and returns the exit
// status.
func Main(args []string, results string, stdout, stderr io.Writer) int {
	return mainWith(args, Env{Results: results, Stdout: stdout, Stderr: stderr})
}

// mainWith is Main with its Env.
func mainWith(args []string, env Env) int {
	opt, code := parse(args, env)
	if code >= 0 {
		return code
	}
	code, err := run(context.Background(), opt, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "Error: %v\n", err)
		return ExitError
	}
	return code
}

// parse reads the flags; code ≥ 0 ends Main (-h, a usage error).
func parse(args []string, env Env) (options, int) {
	var opt options
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: lab %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print the series and change points as JSON (as -format json)")
	fs.StringVar(&opt.format, "format", "text", "output `format`: "+strings.Join(Formats, ", ")+" (html: one trend plot per cell and metric, each point linking to its run's report, which -o FILE writes beside FILE)")
	fs.StringVar(&opt.out, "o", "", "write to `FILE` instead of standard output")
	metric := fs.String("metric", results.MetricThroughput, "the `metrics`, comma-separated: "+strings.Join(results.MetricKeys(), ", "))
	fs.Func("only", "only the cells matching `key=value[,key=value…]` (matrix keys, pair, experiment; repeatable: any matches)", opt.only.Add)
	fs.StringVar(&opt.since, "since", "", "only applies started on or after `DATE` (2026-12-01 or RFC 3339)")
	fs.StringVar(&opt.failOn, "fail-on", "", "exit 2 on `change`: the newest apply lies after a significant change point not found without it")
	fs.StringVar(&opt.archive, "archive", "", "read the series from the archive at `URL` (a SQLite file, or postgres://…) instead of results/: the lab of the newest run in results/, else every lab")
	fs.Bool("no-color", false, "print no ANSI colours (history prints none)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return opt, ExitOK
		}
		return opt, ExitError
	}
	err := func() error {
		if fs.NArg() > 0 {
			return fmt.Errorf("history takes no arguments; got %s", strings.Join(fs.Args(), " "))
		}
		if *asJSON {
			opt.format = "json"
		}
		if !slices.Contains(Formats, opt.format) {
			return fmt.Errorf("history -format %q: want %s", opt.format, strings.Join(Formats, ", "))
		}
		if opt.failOn != "" && opt.failOn != "change" {
			return fmt.Errorf("history -fail-on %q: the only verdict is change", opt.failOn)
		}
		for _, m := range strings.Split(*metric, ",") {
			if _, ok := results.MetricByKey(strings.TrimSpace(m)); !ok {
				return fmt.Errorf("history -metric %q: unknown metric (known: %s)", m, strings.Join(results.MetricKeys(), ", "))
			}
			opt.metrics = append(opt.metrics, strings.TrimSpace(m))
		}
		return nil
	}()
	if err != nil {
		fmt.Fprintf(env.Stderr, "Error: %v\n\n", err)
		fs.Usage()
		return opt, ExitError
	}
	return opt, -1
}

// run reads, analyses and renders the series.
func run(ctx context.Context, opt options, env Env) (int, error) {
	since, err := parseSince(opt.since)
	if err != nil {
		return ExitError, err
	}
	src, lab, closeSource, err := openSource(ctx, opt.archive, env)
	if err != nil {
		return ExitError, err
	}
	defer func() { _ = closeSource() }() // read-only: nothing to lose on close
	f := Filter{Lab: lab, Since: since}
	if len(opt.metrics) == 1 {
		f.Metric = opt.metrics[0]
	}
	points, err := src.Points(ctx, f) // read once: a results/ source loads every run
	if err != nil {
		return ExitError, err
	}
	points = opt.only.Keep(points)
	var series []Series
	for _, m := range opt.metrics { // in -metric's order
		series = append(series, Build(slices.DeleteFunc(slices.Clone(points), func(p Point) bool { return p.Metric != m }))...)
	}
	Analyze(series, changepoint.Options{})
	var b bytes.Buffer
	switch opt.format {
	case "json":
		err = RenderJSON(&b, series)
	case "html":
		err = RenderHTML(&b, series)
	default:
		err = RenderText(&b, series)
	}
	if err != nil {
		return ExitError, err
	}
	if err := write(opt, env, b.Bytes(), series); err != nil {
		return ExitError, err
	}
	if opt.failOn == "change" && Failed(series) {
		return ExitChange, nil
	}
	return ExitOK, nil
}

// write puts the rendering on stdout or in -o's file; beside an HTML
// page, the reports of the runs in results/ its points link to.
func write(opt options, env Env, page []byte, series []Series) error {
	if opt.out == "" {
		_, err := env.Stdout.Write(page)
		return err
	}
	if err := atomicfile.Write(opt.out, page, 0o644); err != nil {
		return err
	}
	reports := ""
	if opt.format == "html" {
		n, err := writeReports(filepath.Dir(opt.out), results.Store{Dir: env.Results, ReadOnly: true}, series)
		if err != nil {
			return err
		}
		reports = fmt.Sprintf(", and %d run reports beside it", n)
	}
	fmt.Fprintf(env.Stderr, "Wrote the %s history to %s%s.\n", opt.format, opt.out, reports)
	return nil
}

// openSource is the archive at location (a SQLite file that exists, or
// a postgres:// URL), or the results/ directory; lab is the lab whose
// series an archive gives ("": every lab's); closeSource closes it.
func openSource(ctx context.Context, location string, env Env) (src Source, lab string, closeSource func() error, err error) {
	if location == "" {
		return ResultsSource{Store: results.Store{Dir: env.Results, ReadOnly: true}}, "", func() error { return nil }, nil
	}
	if !archive.IsPostgres(location) {
		if _, err := os.Stat(strings.TrimPrefix(location, "sqlite:")); err != nil {
			return nil, "", nil, fmt.Errorf("history -archive %s: no archive there (%w)", location, err)
		}
	}
	return openArchive(ctx, location, env.Results)
}

// parseSince reads -since: a date (UTC midnight) or an RFC 3339 time.
func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("history -since %q: want a date (2026-12-01) or an RFC 3339 time", s)
	}
	return t, nil
}
