package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
)

const longLab = `
lab "long" {}
template "t" {}
pair "p" { template = template.t }
experiment "short" {
  pairs = [pair.p]
  iperf3 { duration = "10s" }
}
experiment "soak" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  repeat = 12
  guest { mtu = matrix.mtu }
  iperf3 { duration = "1h" }
}
`

func TestDurationWarning(t *testing.T) {
	lab := load(t, longLab)
	p, diags := New(lab, &state.State{}, Options{})
	if len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	d := diags[0]
	if d.Severity != hcl.DiagWarning || d.Summary != "Plan takes more than a day" ||
		d.Detail != `The plan's 25 runs are estimated to take 24h1m; experiment "soak" alone measures for 24h0m. Fewer matrix values, repeats or a shorter duration would shorten it.` {
		t.Errorf("got %v %q: %q", d.Severity, d.Summary, d.Detail)
	}
	if d.Subject == nil || d.Subject.Filename != "lab.hcl" || d.Subject.Start.Line != 9 || d.Subject.Start.Column != 1 {
		t.Errorf("subject %v, want lab.hcl:9:1", d.Subject)
	}
	// The edge: exactly a day is quiet, a nanosecond more warns.
	p.Estimate = MaxQuietEstimate
	if d := p.checkDuration(lab); d != nil {
		t.Errorf("a day warns: %v", d)
	}
	p.Estimate = MaxQuietEstimate + 1
	if d := p.checkDuration(lab); d == nil {
		t.Error("a day and a nanosecond does not warn")
	}
}

// TestResultPathsChecked: two runs that would write one result file are
// refused at plan time, not found out at apply after the first.
func TestResultPathsChecked(t *testing.T) {
	lab := load(t, twoShapes)
	p, diags := New(lab, &state.State{}, Options{Now: time.Unix(0, 0)})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if d := p.checkResultPaths(lab); d != nil {
		t.Fatalf("distinct cells refused: %v", d)
	}
	g := p.Groups[0]
	dup := g.Runs[len(g.Runs)-1]
	g.Runs = append(g.Runs, dup)
	d := p.checkResultPaths(lab)
	if d == nil {
		t.Fatal("duplicate result path accepted")
	}
	path := results.RecordPath(results.Record{Experiment: dup.Experiment, Pair: dup.Pair, Cell: dup.Cell, CellKey: dup.CellKey, Repeat: dup.Repeat})
	want := `In experiment "e", the cells "` + dup.CellKey + `" and "` + dup.CellKey + `" of pair "p" would both be stored as ` + path +
		"; make their matrix values differ in more than punctuation."
	if d.Summary != "Two runs would write the same result file" || d.Detail != want || d.Subject == nil || d.Subject.Start.Line == 0 {
		t.Errorf("got %q: %q at %v\nwant detail %q", d.Summary, d.Detail, d.Subject, want)
	}
}

// TestCellKeysDistinct: two cells whose values print the same cell key
// are refused at plan time (spec refuses the values that could do it;
// this is the plan's own check).
func TestCellKeysDistinct(t *testing.T) {
	lab := load(t, twoShapes)
	p, diags := New(lab, &state.State{}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var runs []*Run
	for _, g := range p.Groups {
		for i := range g.Runs {
			runs = append(runs, &g.Runs[i])
		}
	}
	first := runs[0]
	for _, r := range runs {
		if r.CellIndex != first.CellIndex {
			r.CellKey = first.CellKey
			break
		}
	}
	d := p.checkResultPaths(lab)
	if d == nil || d.Summary != "Two cells print alike" || d.Subject == nil ||
		!strings.HasSuffix(d.Detail, `both print as "`+first.CellKey+`", so their results could not be told apart; keep "," and "=" out of matrix values.`) {
		t.Fatalf("got %v", d)
	}
}

// TestGuestMTUAboveLinkAtPlan: the guest-above-link check that validate
// makes on the first maxCheckCombos combinations is made by plan on every
// cell; a cell past them is refused at the guest's mtu.
func TestGuestMTUAboveLinkAtPlan(t *testing.T) {
	lab := load(t, `
lab "mtu" {}
template "t" {}
pair "p" {
  template = template.t
  link { mtu = 1536 }
}
experiment "e" {
  pairs  = [pair.p]
  matrix = { a = range(70), b = range(70) }
  guest { mtu = 1400 + matrix.a + matrix.b }
  iperf3 { duration = "1s" }
}
`)
	_, diags := New(lab, &state.State{}, Options{})
	if !diags.HasErrors() {
		t.Fatal("planned a cell with mtu 1538 on a 1536 link")
	}
	d := diags[0]
	if d.Summary != "Guest MTU above the link MTU" || d.Subject == nil || d.Subject.Start.Line != 11 || d.Subject.Start.Column != 17 {
		t.Errorf("got %s at %v: %s", d.Summary, d.Subject, d.Detail)
	}
}
