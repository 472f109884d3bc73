package view

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Apply is apply's view (operation.ApplyView) for people, or with JSON
// for machines: stdout then carries the engine's events and the
// expectations' verdicts only, one JSON object a line, and what is said
// to people besides goes to stderr.
type Apply struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	JSON           bool
	// Color is whether stdout shows ANSI colours; TTY whether it is a
	// terminal (the human view's progress line).
	Color, TTY bool
}

// say is where lines for people go: stdout, or stderr with JSON.
func (v *Apply) say() io.Writer {
	if v.JSON {
		return v.Stderr
	}
	return v.Stdout
}

// Plan renders the plan for people (nothing with JSON).
func (v *Apply) Plan(p *plan.Plan) error {
	if v.JSON {
		return nil
	}
	return p.Render(v.Stdout, plan.RenderOptions{Color: v.Color})
}

// Reaches says where the providers connect.
func (v *Apply) Reaches(line string) { fmt.Fprint(v.say(), line) }

// Approve asks for approval on Stdin.
func (v *Apply) Approve() error { return Approve(v.Stdout, v.Stdin, "Apply") }

// NothingToResume says that run runID has every result selected.
func (v *Apply) NothingToResume(runID string) {
	fmt.Fprintf(v.say(), "Run %s has a result for every run selected: nothing to resume.\n", runID)
}

// Events is the JSON event stream, or the human view with an ETA.
func (v *Apply) Events(p *plan.Plan) (engine.View, func()) {
	if v.JSON {
		return NewJSON(v.Stdout), func() {}
	}
	hv := NewHuman(v.Stdout, v.TTY)
	hv.SetETA(operation.NewETA(p))
	return hv, hv.Close
}

// Summary prints the run's table and one line on how it went (nothing
// with JSON).
func (v *Apply) Summary(s operation.ApplySummary) {
	if v.JSON {
		return
	}
	err := s.LoadErr
	if err == nil && len(s.Records) > 0 {
		fmt.Fprintln(v.Stdout)
		err = report.Render(v.Stdout, "table", s.Info, results.Group(s.Records), report.Options{Color: v.Color})
	}
	o := s.Outcome
	if err != nil && o.Runs > 0 {
		fmt.Fprintf(v.Stderr, "Warning: could not render the results: %v\n", err)
	}
	skipped := ""
	if o.Skipped > 0 {
		skipped = fmt.Sprintf(", %d repeats not needed", o.Skipped)
	}
	if o.Stopped > 0 {
		skipped += fmt.Sprintf(", %d stopped by the interrupt and not recorded", o.Stopped)
	}
	fmt.Fprintf(v.Stdout, "\nApply %s in %s: %d runs (%d failed%s). Results: %s\n", s.Status, s.Took.Round(time.Second), o.Runs, o.Failed, skipped, s.Run.Dir())
	if s.Keep {
		fmt.Fprintln(v.Stdout, "Machines were kept (-keep); `lab destroy` removes them.")
	}
}

// TeardownTrouble says what a failed teardown left, on stderr.
func (v *Apply) TeardownTrouble(err error) { TeardownTrouble(v.Stderr, err) }

// LockFile says that the lab's first lock file was written, or that a
// drifted one was kept.
func (v *Apply) LockFile(wrote, kept bool) {
	switch {
	case wrote && !v.JSON:
		fmt.Fprintf(v.Stdout, "Wrote %s: the templates, kernels, drivers and tool versions these results depend on. Commit it beside the spec.\n", lockfile.FileName)
	case kept:
		fmt.Fprintf(v.Stderr, "%s was kept: `lab init -upgrade` accepts the new values; `lab apply -locked` refuses to run on drift.\n", lockfile.FileName)
	}
}

// Checks shows the expectations' verdicts after the run's summary.
func (v *Apply) Checks(runID string, outs []verdicts.Outcome) error {
	if !v.JSON {
		fmt.Fprintln(v.Stdout)
	}
	return Checks(v.Stdout, runID, outs, v.JSON, v.Color)
}

// Checks shows the expectations' verdicts on run runID: as a table, or
// with asJSON as one line, so that it fits apply's -json event stream.
func Checks(w io.Writer, runID string, outs []verdicts.Outcome, asJSON, color bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"type": "check", "run": runID, "outcomes": outs})
	}
	return report.RenderChecks(w, runID, outs, report.Options{Color: color})
}

// Approve asks the user on in to confirm, as Terraform does: any answer
// but "yes" prints "<what> cancelled." and ends the command with exit 1
// (Terraform's exit status for a declined apply or destroy).
func Approve(out io.Writer, in io.Reader, what string) error {
	fmt.Fprint(out, "\nDo you want to perform these actions? Only 'yes' will be accepted: ")
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("no answer on standard input (use -auto-approve when running unattended)")
	}
	if strings.TrimSpace(line) != "yes" {
		fmt.Fprintln(out, what+" cancelled.")
		return operation.ErrReported
	}
	return nil
}
