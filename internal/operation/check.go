package operation

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

// checkRuns evaluates exps against the runs ids (ids or aliases; none: the
// latest) of the lab's results, pooled when there are several (each
// apply's cell mean one observation). It returns the runs' joint name
// ("ID+ID") and the outcomes; a run that did not complete makes every
// verdict that is not a fail incomplete. partial allows checking such a
// run.
func (o *Operation) checkRuns(lab *spec.Lab, exps []verdicts.Expectation, ids []string, partial bool) (string, []verdicts.Outcome, error) {
	var err error
	rs := o.ResultStore()
	if len(ids) == 0 {
		latest, err := rs.Latest()
		if err != nil {
			return "", nil, fmt.Errorf("no results under %s yet: run `lab apply` first (%w)", rs.Dir, err)
		}
		ids = []string{latest}
	}
	perRun := map[string][]results.Record{}
	var incomplete []string
	for i, id := range ids {
		if ids[i], err = rs.Resolve(id); err != nil {
			return "", nil, err
		}
		info, recs, err := o.LoadCheckedRun(rs, lab, ids[i], partial)
		if err != nil {
			return "", nil, err
		}
		if info.Status != results.StatusComplete && info.Status != "" {
			incomplete = append(incomplete, fmt.Sprintf("run %s ended %s", ids[i], info.Status))
		}
		perRun[ids[i]] = recs
	}
	runID := strings.Join(ids, "+")
	recs := perRun[ids[0]]
	if len(ids) > 1 {
		// Each apply's cell mean is one observation: the verdict then
		// includes the apply-to-apply variance a single apply cannot see.
		recs = results.PoolRuns(perRun)
	}
	outs := verdicts.Evaluate(results.Group(recs), exps)
	if len(incomplete) > 0 {
		verdicts.MarkIncomplete(outs, strings.Join(incomplete, "; ")+", so cells may lack runs")
	}
	return runID, outs, nil
}

// WriteJUnit writes the outcomes as JUnit XML to path.
func WriteJUnit(path, runID string, outs []verdicts.Outcome, strict bool) error {
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

// Expectations turns the spec's expect blocks into the results package's
// terms: selector values rendered the way record cells are.
func Expectations(lab *spec.Lab) ([]verdicts.Expectation, error) {
	var out []verdicts.Expectation
	tables := publishedTables(lab)
	for _, e := range lab.Experiments {
		for _, x := range e.Expects {
			r := verdicts.Expectation{Name: x.Name, Experiment: e.Name, Where: map[string]string{}}
			for k, v := range x.Where {
				r.Where[k] = plan.Render(v)
			}
			if t := x.Throughput; t != nil {
				r.Throughput = &verdicts.Target{Value: t.Value, Tolerance: t.Tolerance}
			}
			if t := x.Retransmits; t != nil {
				r.Retransmits = &verdicts.Target{Value: t.Value}
			}
			for _, m := range x.Metrics {
				r.Metrics = append(r.Metrics, verdicts.MetricTarget{Metric: m.Metric, Value: m.Value, Tolerance: m.Tolerance, IsMax: m.Max})
			}
			if q := x.Ratio; q != nil {
				of, err := verdicts.ParseSelector(q.Of)
				if err != nil {
					return nil, fmt.Errorf("expect %q: %w", x.Name, err)
				}
				over, err := verdicts.ParseSelector(q.Over)
				if err != nil {
					return nil, fmt.Errorf("expect %q: %w", x.Name, err)
				}
				of.Value, over.Value = unquote(of.Value), unquote(over.Value)
				r.Ratio = &verdicts.RatioTarget{Of: of, Over: over, AtLeast: q.AtLeast, Between: q.Between}
				if q.Published != "" {
					r.Ratio.Published, r.Ratio.Margin = tables[q.Published], q.Margin
				}
			}
			if p := x.Published; p != nil {
				r.Published = &verdicts.PublishedTarget{Table: tables[p.Table], Margin: p.Margin}
			}
			if p := x.Order; p != nil {
				r.Order = &verdicts.PublishedTarget{Table: tables[p.Table], Margin: p.Margin}
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// publishedTables turns the spec's published blocks into the results'
// terms, by name.
func publishedTables(lab *spec.Lab) map[string]*verdicts.PublishedTable {
	out := map[string]*verdicts.PublishedTable{}
	for name, p := range lab.Published {
		t := &verdicts.PublishedTable{Name: name, Source: p.Source, Hardware: p.Hardware, Tool: p.Tool,
			Side: p.Side, Metric: p.MetricKey(), Match: p.Match}
		for _, c := range p.Cells {
			pc := verdicts.PublishedCell{Where: map[string]string{}, Value: c.Value}
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

// HasExpectations reports whether any experiment has an expect block.
func HasExpectations(lab *spec.Lab) bool {
	for _, e := range lab.Experiments {
		if len(e.Expects) > 0 {
			return true
		}
	}
	return false
}

// LoadCheckedRun loads a run to check and refuses one of another lab, or
// one that was interrupted or is still running unless partial.
func (o *Operation) LoadCheckedRun(rs results.Store, lab *spec.Lab, runID string, partial bool) (results.RunInfo, []results.Record, error) {
	info, recs, err := rs.Load(runID)
	if err != nil {
		return info, nil, err
	}
	if info.Lab != "" && info.Lab != lab.Name {
		return info, nil, fmt.Errorf("run %s belongs to lab %q, not %q", runID, info.Lab, lab.Name)
	}
	if (info.Status == results.StatusInterrupted || info.Status == results.StatusRunning) && !partial {
		why := info.Note
		if why == "" {
			why = "it did not finish"
		}
		return info, nil, fmt.Errorf("run %s is %s (%s): its cells may lack runs, so a verdict would not be the experiment's; rerun it, or pass -partial to check what it has",
			runID, info.Status, why)
	}
	if info.SpecHash != "" && info.SpecHash != lab.Hash {
		fmt.Fprintf(o.Stderr, "Warning: the spec changed since run %s; expectations are read from the current spec.\n", runID)
	}
	return info, recs, nil
}

// ReportOutcomes checks the spec's expect blocks against a run for the
// HTML report, as `lab check` does; when the spec cannot be loaded (or
// has no expect blocks) the note says so instead of failing the report.
func (o *Operation) ReportOutcomes(v Vars, info results.RunInfo, groups []results.CellGroup) ([]verdicts.Outcome, string) {
	lab, err := o.LoadLab(v)
	if err != nil {
		return nil, "expectations not checked: the spec did not load (" + firstLine(err.Error()) + ")"
	}
	if info.Lab != "" && info.Lab != lab.Name {
		return nil, fmt.Sprintf("expectations not checked: run %s belongs to lab %q, the spec is lab %q", info.ID, info.Lab, lab.Name)
	}
	exps, err := Expectations(lab)
	if err != nil {
		return nil, "expectations not checked: " + err.Error()
	}
	if len(exps) == 0 {
		return nil, "the spec has no expect blocks"
	}
	outs := verdicts.Evaluate(groups, exps)
	if info.Status != results.StatusComplete && info.Status != "" {
		verdicts.MarkIncomplete(outs, fmt.Sprintf("run %s ended %s, so cells may lack runs", info.ID, info.Status))
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
