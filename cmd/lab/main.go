// Command lab makes network-performance comparisons between guest operating
// systems and virtual NICs reproducible: a lab directory of *.hcl files
// describes pairs of guests and a matrix of settings; `lab apply` creates
// the guests, runs the benchmarks, records the results and tears down.
//
// Usage: lab [-chdir=DIR] <verb> [flags] [args]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/lab-bench/lab/internal/history"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/redact"
	"github.com/lab-bench/lab/internal/spec"

	_ "github.com/lab-bench/lab/guest/oses" // registers every guest os

	_ "github.com/lab-bench/lab/providers/bhyve"   // registers "bhyve"
	_ "github.com/lab-bench/lab/providers/hosts"   // registers "hosts"
	_ "github.com/lab-bench/lab/providers/libvirt" // registers "libvirt"
	_ "github.com/lab-bench/lab/providers/local"   // registers "local"
	_ "github.com/lab-bench/lab/providers/vsphere" // registers "vsphere"
)

// Exit codes.
const (
	exitOK     = 0
	exitError  = 1
	exitExpect = 2 // an expect block failed (lab check)
)

// verb is one subcommand.
type verb struct {
	name    string
	summary string
	run     func(g *globals, args []string) error
}

func verbs() []verb {
	return []verb{
		{"validate", "Check the lab's .hcl files", runValidate},
		{"plan", "Show what apply would create and run", runPlan},
		{"apply", "Create the machines, run the benchmarks, record results, tear down", runApply},
		{"destroy", "Remove everything the lab created", runDestroy},
		{"state", "Inspect or edit the state (state list, show ADDR, rm ADDR…)", runState},
		{"show", "Show a saved plan or a run (default: the latest), for people or as JSON", runShow},
		{"report", reportSummary, runReport},
		{"check", "Check a run against the spec's expect blocks (exit 2 on a failure)", runCheck},
		{"effects", "Estimate each matrix factor's effect and two-way interactions on a run's metrics (95 % CI)", runEffects},
		{"history", "Each cell's series over applies with change points (E-divisive; -fail-on change exits 2)", func(g *globals, a []string) error {
			return reported{history.Main(a, g.op().ResultsDir(), g.stdout, g.stderr)} // internal/history parses the flags
		}},
		{"compare", "Compare two runs cell by cell (Welch's t-test, Holm–Bonferroni; -fail-on exits 2)", runCompare},
		{"publish", "Write a run as a self-contained bundle: spec, records, reports, POST.md, checksum manifest", runPublish},
		{"archive", "Store runs in the archive: import DIR… (results/, bundles), push this lab's (-archive URL)", func(g *globals, a []string) error { return g.op().Archive(a, g.stdout) }},
		{"reproduce", "Run a published bundle's spec here and judge each cell against it (exit 2: not reproduced)", runReproduce},
		{"init", "Prepare a lab directory; -upgrade rewrites .lab.lock.hcl from the latest run", runInit},
		{"fmt", "Rewrite the lab's .hcl files in the canonical style (-check, -diff, -recursive)", runFmt},
		{"version", "Print the version", runVersion},
		{"help", "Show the usage of lab or of a verb (lab help VERB)", runHelp},
		{"completion", "Print a shell completion script: eval \"$(lab completion bash)\" (or zsh; fish: lab completion fish | source)", runCompletion},
	}
}

// globals are the flags before the verb.
type globals struct {
	dir    string
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	env    []string
	// log traces provider calls and guest commands (LAB_LOG); nil: off.
	log *slog.Logger
	// secrets are the sensitive values (filled when the spec is loaded)
	// that stdout, stderr, the log, records, plans and the state never
	// show (package redact).
	secrets *redact.Set
	// noColor is -no-color (before the verb or among its flags).
	noColor bool
	// lockTimeout is -lock-timeout: how long to wait for the state lock.
	lockTimeout time.Duration
}

func main() {
	// An expression that builds more than lab can hold, or runs for
	// longer than any spec needs, is reported at its file:line:column
	// instead of running out of memory (spec.Guard).
	go spec.Guard(nil, spec.GuardLimits{}, func(d *hcl.Diagnostic) {
		files := map[string]*hcl.File{}
		name := d.Subject.Filename
		if diagtext.HiddenSource(filepath.Dir(name), name) == "" {
			if b, err := os.ReadFile(name); err == nil { // for the source line
				files[name] = &hcl.File{Bytes: b}
			}
		}
		_ = diagtext.NewWriter(os.Stderr, files, termWidth(), false).WriteDiagnostic(d)
		os.Exit(exitError)
	})
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// Main runs lab with args and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	secrets := &redact.Set{}
	secrets.Add("GOVC_PASSWORD", operation.EnvValue(env, "GOVC_PASSWORD"))
	stdout, stderr = secrets.Writer(stdout), secrets.Writer(stderr)
	g := &globals{dir: ".", stdout: stdout, stderr: stderr, stdin: stdin, env: env, secrets: secrets}
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&g.dir, "chdir", ".", "switch to `DIR` (the lab directory) before running the verb")
	fs.BoolVar(&g.noColor, "no-color", false, "print no ANSI colours (as NO_COLOR=1 does)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {} // printed below: asked for (-h) to stdout, as `lab help`
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return exitOK
		}
		usage(stderr)
		return exitError
	}
	var err error
	if g.log, err = operation.NewLogger(env, stderr, secrets); err != nil {
		return exitCode(stderr, err)
	}
	if g.log != nil {
		slog.SetDefault(g.log) // back ends' own trace-level detail
	}
	if g.dir != "." {
		if err := operation.CheckChdir(g.dir); err != nil {
			return exitCode(stderr, err)
		}
	}
	rest := fs.Args()
	if *showVersion {
		return exitCode(stderr, runVersion(g, nil))
	}
	if len(rest) == 0 {
		usage(stderr)
		return exitError
	}
	if rest[0] == "__complete" { // the completion script's helper, not a verb
		return complete(g, rest[1:])
	}
	for _, v := range verbs() {
		if v.name == rest[0] {
			err := v.run(g, rest[1:])
			return exitCode(stderr, err)
		}
	}
	fmt.Fprintf(stderr, "lab: unknown verb %q\n\n", rest[0])
	if s := view.Closest(rest[0], verbNames()); s != "" {
		fmt.Fprintf(stderr, "Did you mean %q?\n\n", s)
	}
	usage(stderr)
	return exitError
}

// verbNames are the verbs' names, in usage order.
func verbNames() (names []string) {
	for _, v := range verbs() {
		names = append(names, v.name)
	}
	return names
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: lab [-chdir=DIR] [-no-color] [-version] <verb> [flags] [args]\n\nVerbs:\n")
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-10s %s\n", v.name, v.summary)
	}
	fmt.Fprintf(w, "\nGlobal flags, before the verb:\n"+
		"  -chdir=DIR  switch to DIR (the lab directory) before running the verb\n"+
		"  -no-color   print no ANSI colours (NO_COLOR=1 does the same)\n"+
		"  -version    print the version\n"+
		"\nRun `lab help VERB` or `lab VERB -h` for a verb's flags.\n")
}

// runHelp is `lab help [VERB]`: lab's usage, or the verb's (its -h);
// `lab help state SUBCOMMAND` is that subcommand's.
func runHelp(g *globals, args []string) error {
	if len(args) == 2 && args[0] == "state" { // lab help state rm
		help := *g
		help.stderr = g.stdout
		return runState(&help, []string{args[1], "-h"})
	}
	fs := newFlags(g, "help", "help [VERB | state SUBCOMMAND]")
	if err := parseFlags(fs, args, optionalArg("a verb")); err != nil {
		return err
	}
	name := fs.Arg(0)
	if name == "" {
		usage(g.stdout)
		return nil
	}
	for _, v := range verbs() {
		if v.name == name && name != "help" {
			help := *g
			help.stderr = g.stdout // asked for: usage is the output
			return v.run(&help, []string{"-h"})
		}
	}
	if name == "help" {
		usage(g.stdout)
		return nil
	}
	return fmt.Errorf("lab has no verb %q%s (lab help lists them)", name, view.DidYouMean(name, verbNames()))
}

// reported is an error whose message was already printed (diagnostics).
type reported struct{ code int }

func (r reported) Error() string { return "already reported" }

func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var r reported
	if errors.As(err, &r) {
		return r.code
	}
	if errors.Is(err, operation.ErrExpectFailed) { // its verdicts were shown
		return exitExpect
	}
	if errors.Is(err, operation.ErrReported) { // diagnostics printed already
		return exitError
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintf(stderr, "Error: %v\n", err)
	return exitError
}
