package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/atomicfile"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
	"github.com/lab-bench/lab/spec"
)

// runCheck is `lab check [RUN]`: evaluate the spec's expect blocks against
// a run (default: the latest) and exit 2 when one fails.
func runCheck(g *globals, args []string) error {
	fs := newFlags(g, "check", "check [-json] [-strict] [-partial] [-junit FILE] [-var k=v] [-var-file F] [RUN ...]")
	var v varFlags
	v.register(fs)
	asJSON := fs.Bool("json", false, "print the outcomes as JSON")
	strict := fs.Bool("strict", false, "exit 2 on an inconclusive or incomplete expectation too (for CI)")
	partial := fs.Bool("partial", false, "check a run that was interrupted or is still running (its cells are marked incomplete)")
	junit := fs.String("junit", "", "also write the verdicts as JUnit XML to `FILE` (inconclusive/incomplete: skipped; with -strict: failures)")
	if err := parseFlags(fs, args, arity{0, 64, "run ids (at most 64)"}); err != nil {
		return err
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	// Several runs (ids or aliases) are checked together, each apply's
	// cell mean one observation.
	return check(g, lab, strings.Join(fs.Args(), " "), checkOptions{json: *asJSON, strict: *strict, junit: *junit, partial: *partial})
}

type checkOptions struct {
	json, strict bool
	// partial allows checking a run that was interrupted or is running.
	partial bool
	// junit is the JUnit XML file to write ("" for none).
	junit string
}

// check evaluates lab's expectations against run runID ("" = latest; the
// aliases "latest" and "previous" work too),
// prints the verdicts and returns reported{exitExpect} on a failure (with
// strict: on any verdict but pass). A run that did not complete makes
// every verdict that is not a fail incomplete.
func check(g *globals, lab *spec.Lab, runID string, opt checkOptions) error {
	exps, err := expectations(lab)
	if err != nil {
		return err
	}
	if len(exps) == 0 {
		fmt.Fprintf(g.stdout, "Lab %q has no expect blocks: nothing to check.\n", lab.Name)
		return nil
	}
	rs := resultStore(g)
	ids := strings.Fields(runID)
	if len(ids) == 0 {
		latest, err := rs.Latest()
		if err != nil {
			return fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
		ids = []string{latest}
	}
	perRun := map[string][]results.Record{}
	var incomplete []string
	for i, id := range ids {
		if ids[i], err = rs.Resolve(id); err != nil {
			return err
		}
		info, recs, err := loadCheckedRun(g, rs, lab, ids[i], opt)
		if err != nil {
			return err
		}
		if info.Status != results.StatusComplete && info.Status != "" {
			incomplete = append(incomplete, fmt.Sprintf("run %s ended %s", ids[i], info.Status))
		}
		perRun[ids[i]] = recs
	}
	runID = strings.Join(ids, "+")
	recs := perRun[ids[0]]
	if len(ids) > 1 {
		// Each apply's cell mean is one observation: the verdict then
		// includes the apply-to-apply variance a single apply cannot see.
		recs = results.PoolRuns(perRun)
	}
	outs := results.Evaluate(results.Group(recs), exps)
	if len(incomplete) > 0 {
		results.MarkIncomplete(outs, strings.Join(incomplete, "; ")+", so cells may lack runs")
	}
	if opt.json {
		// One line, so that it fits apply's -json event stream.
		if err := json.NewEncoder(g.stdout).Encode(map[string]any{"type": "check", "run": runID, "outcomes": outs}); err != nil {
			return err
		}
	} else if err := report.RenderChecks(g.stdout, runID, outs, report.Options{Color: useColor(g, g.stdout)}); err != nil {
		return err
	}
	if opt.junit != "" {
		if err := writeJUnit(opt.junit, runID, outs, opt.strict); err != nil {
			return err
		}
	}
	for _, o := range outs {
		// Not reproduced fails like a fail; not comparable never does (the
		// run is not on the post's hardware: only shapes were judged).
		if o.Verdict.Failing() || opt.strict && !o.Verdict.Settled() {
			return reported{exitExpect}
		}
	}
	return nil
}

// writeJUnit writes the outcomes as JUnit XML to path.
func writeJUnit(path, runID string, outs []results.Outcome, strict bool) error {
	var buf bytes.Buffer
	if err := report.WriteJUnit(&buf, runID, outs, strict); err != nil {
		return err
	}
	// Like plan -out and report -o: a regular file is replaced whole, a
	// device or a symlink's target written through, never replaced.
	if err := atomicfile.Write(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("-junit: %w", err)
	}
	return nil
}

// expectations turns the spec's expect blocks into the results package's
// terms: selector values rendered the way record cells are.
func expectations(lab *spec.Lab) ([]results.Expectation, error) {
	var out []results.Expectation
	tables := publishedTables(lab)
	for _, e := range lab.Experiments {
		for _, x := range e.Expects {
			r := results.Expectation{Name: x.Name, Experiment: e.Name, Where: map[string]string{}}
			for k, v := range x.Where {
				r.Where[k] = plan.Render(v)
			}
			if t := x.Throughput; t != nil {
				r.Throughput = &results.Target{Value: t.Value, Tolerance: t.Tolerance}
			}
			if t := x.Retransmits; t != nil {
				r.Retransmits = &results.Target{Value: t.Value}
			}
			for _, m := range x.Metrics {
				r.Metrics = append(r.Metrics, results.MetricTarget{Metric: m.Metric, Value: m.Value, Tolerance: m.Tolerance, IsMax: m.Max})
			}
			if q := x.Ratio; q != nil {
				of, err := results.ParseSelector(q.Of)
				if err != nil {
					return nil, fmt.Errorf("expect %q: %w", x.Name, err)
				}
				over, err := results.ParseSelector(q.Over)
				if err != nil {
					return nil, fmt.Errorf("expect %q: %w", x.Name, err)
				}
				of.Value, over.Value = unquote(of.Value), unquote(over.Value)
				r.Ratio = &results.RatioTarget{Of: of, Over: over, AtLeast: q.AtLeast, Between: q.Between}
				if q.Published != "" {
					r.Ratio.Published, r.Ratio.Margin = tables[q.Published], q.Margin
				}
			}
			if p := x.Published; p != nil {
				r.Published = &results.PublishedTarget{Table: tables[p.Table], Margin: p.Margin}
			}
			if p := x.Order; p != nil {
				r.Order = &results.PublishedTarget{Table: tables[p.Table], Margin: p.Margin}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// publishedTables turns the spec's published blocks into the results'
// terms, by name.
func publishedTables(lab *spec.Lab) map[string]*results.PublishedTable {
	out := map[string]*results.PublishedTable{}
	for name, p := range lab.Published {
		t := &results.PublishedTable{Name: name, Source: p.Source, Hardware: p.Hardware, Tool: p.Tool,
			Side: p.Side, Metric: p.MetricKey(), Match: p.Match}
		for _, c := range p.Cells {
			pc := results.PublishedCell{Where: map[string]string{}, Value: c.Value}
			for k, v := range c.Where {
				pc.Where[k] = plan.Render(v)
			}
			t.Cells = append(t.Cells, pc)
		}
		out[name] = t
	}
	return out
}

// unquote drops the quotes of a selector value written "cc=\"reno\"".
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

// hasExpectations reports whether any experiment has an expect block.
func hasExpectations(lab *spec.Lab) bool {
	for _, e := range lab.Experiments {
		if len(e.Expects) > 0 {
			return true
		}
	}
	return false
}

// loadCheckedRun loads a run to check and refuses one of another lab, or
// one that was interrupted or is still running unless opt.partial.
func loadCheckedRun(g *globals, rs results.Store, lab *spec.Lab, runID string, opt checkOptions) (results.RunInfo, []results.Record, error) {
	info, recs, err := rs.Load(runID)
	if err != nil {
		return info, nil, err
	}
	if info.Lab != "" && info.Lab != lab.Name {
		return info, nil, fmt.Errorf("run %s belongs to lab %q, not %q", runID, info.Lab, lab.Name)
	}
	if (info.Status == results.StatusInterrupted || info.Status == results.StatusRunning) && !opt.partial {
		why := info.Note
		if why == "" {
			why = "it did not finish"
		}
		return info, nil, fmt.Errorf("run %s is %s (%s): its cells may lack runs, so a verdict would not be the experiment's; rerun it, or pass -partial to check what it has",
			runID, info.Status, why)
	}
	if info.SpecHash != "" && info.SpecHash != lab.Hash {
		fmt.Fprintf(g.stderr, "Warning: the spec changed since run %s; expectations are read from the current spec.\n", runID)
	}
	return info, recs, nil
}
