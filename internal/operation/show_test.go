package operation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// showView is a ShowView writing a transcript (Plan is recView's).
type showView struct{ recView }

func (v *showView) Run(info results.RunInfo, recs []results.Record) error {
	v.say("run %s of lab %s: %d records in %d cells", info.ID, info.Lab, len(recs), len(results.Group(recs)))
	return nil
}

// TestShowVerb: show, one operation call, shows runs applied in-process
// on the fake back end (the latest by default, an alias) and a saved plan
// given by its path; a plan file named relative to the lab directory
// rather than to where lab was started, an unknown run, an alias with
// too few runs and a file that is no plan are errors.
func TestShowVerb(t *testing.T) {
	o := newFakeOp(t, fakeLab("show", ""))
	for range 2 {
		if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil && !errors.Is(err, ErrExpectFailed) {
			t.Fatal(err)
		}
	}
	saved := filepath.Join(o.Dir, "saved.plan")
	if _, err := o.Plan(context.Background(), PlanArgs{Out: saved}, &planView{}); err != nil {
		t.Fatal(err)
	}
	one, oneWithFile := newFakeOp(t, fakeLab("show-one", "")), newFakeOp(t, fakeLab("show-one-file", ""))
	for _, op := range []*Operation{one, oneWithFile} {
		if err := op.Apply(context.Background(), fakeArgs(), &recView{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(oneWithFile.Dir, results.AliasPrevious), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, arg, wantErr string
		op                 *Operation
	}{
		{name: "latest"},
		{name: "previous", arg: results.AliasPrevious},
		{name: "plan", arg: saved},
		// Resolve errs only on an alias, so a plan file named relative to
		// the lab directory is taken for a run id that Load does not find.
		{name: "plan-relative", arg: "saved.plan", wantErr: "no run saved.plan"},
		{name: "too-few-runs", op: one, arg: results.AliasPrevious, wantErr: "holds 1 run(s)"},
		{name: "alias-or-file", op: oneWithFile, arg: results.AliasPrevious, wantErr: "previous is neither a saved plan file nor a run id"},
		{name: "unknown-run", arg: "19990101T000000Z", wantErr: "19990101T000000Z"},
		{name: "not-a-plan", arg: filepath.Join(o.Dir, "lab.hcl"), wantErr: "lab.hcl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := o
			if tc.op != nil {
				op = tc.op
			}
			v := &showView{}
			err := op.Show(tc.arg, v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Show = %v, want an error with %q", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "showverb", tc.name+".golden"), v.transcript(op.Dir))
		})
	}
}
