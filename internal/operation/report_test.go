package operation

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// reportView is a ReportView writing a transcript.
type reportView struct{ recView }

func (v *reportView) Report(format string, ids []string, runs []report.RunReport) error {
	v.say("report %s of %s", format, strings.Join(ids, ", "))
	for _, r := range runs {
		v.say("  run %s of lab %s: %d cells, %d records, color %v", r.Info.ID, r.Info.Lab, len(r.Groups), len(r.Options.Records), r.Options.Color)
		for _, out := range r.Options.Outcomes {
			v.say("  expect %s: %s", out.Name, out.Verdict)
		}
		if r.Options.ChecksNote != "" {
			v.say("  note: %s", r.Options.ChecksNote)
		}
	}
	return nil
}

// TestReportVerb: report, one operation call, loads runs applied
// in-process on the fake back end: the latest by default, aliases and
// several runs, an html report judged against the expect blocks (a spec
// that no longer loads is a note, not an error), no runs yet, an unknown
// run.
func TestReportVerb(t *testing.T) {
	pass := `expect "jumbo changes nothing" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.9, 1.1] }
  }`
	o := newFakeOp(t, fakeLab("report", pass))
	for range 2 {
		if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil && !errors.Is(err, ErrExpectFailed) {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		args    ReportArgs
		op      *Operation
		wantErr string
	}{
		{name: "latest", args: ReportArgs{Format: "table", Color: true}},
		{name: "aliases", args: ReportArgs{Format: "csv", Runs: []string{results.AliasPrevious, results.AliasLatest}}},
		{name: "html", args: ReportArgs{Format: "html", Runs: []string{results.AliasLatest}}},
		{name: "html-bad-var", args: ReportArgs{Format: "html", Vars: Vars{Files: []string{"missing.labvars"}}}},
		{name: "unknown-run", args: ReportArgs{Format: "table", Runs: []string{"19990101T000000Z"}}, wantErr: "19990101T000000Z"},
		{name: "no-runs", op: newFakeOp(t, fakeLab("report-none", "")), args: ReportArgs{Format: "table"}, wantErr: "run `lab apply` first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := o
			if tc.op != nil {
				op = tc.op
			}
			v := &reportView{}
			err := op.Report(tc.args, v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Report = %v, want an error with %q", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "reportverb", tc.name+".golden"), v.transcript(op.Dir))
		})
	}
}
