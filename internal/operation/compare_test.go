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
	"github.com/lab-bench/lab/internal/verdicts"
)

// compareView is a CompareView writing a transcript.
type compareView struct{ recView }

func (v *compareView) Comparison(base, test string, ds []verdicts.Delta) error {
	v.say("comparison of %s with %s: %d cells", base, test, len(ds))
	for _, d := range ds {
		v.say("  %s %s %s: %s", d.Metric, d.Pair, d.CellKey, d.Change)
	}
	return nil
}

// compareArgs are compare's defaults, as its flags give them.
func compareArgs() CompareArgs {
	return CompareArgs{Base: results.AliasPrevious, Test: results.AliasLatest, Metric: results.MetricThroughput,
		Format: "table", Threshold: verdicts.DefaultThreshold, ShapeMargin: verdicts.DefaultShapeMargin, Adjust: verdicts.AdjustHolm}
}

// TestCompareVerb: compare, one operation call, compares two runs applied
// in-process on the fake back end; a wrong metric, format or adjustment
// is refused before any run is read, an unknown run is an error, and a
// verdict among -fail-on is ErrExpectFailed.
func TestCompareVerb(t *testing.T) {
	o := newFakeOp(t, fakeLab("compare", ""))
	for range 2 {
		if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		args    func(a *CompareArgs)
		wantErr string
		failed  bool
	}{
		{name: "previous-latest", args: func(*CompareArgs) {}},
		{name: "bh", args: func(a *CompareArgs) { a.Adjust = verdicts.AdjustBH }},
		{name: "fail-on", args: func(a *CompareArgs) { a.FailOn = verdicts.Changes }, failed: true},
		{name: "metric", args: func(a *CompareArgs) { a.Metric = "speed" }, wantErr: `compare -metric "speed": unknown metric`},
		{name: "format", args: func(a *CompareArgs) { a.Format = "pdf" }, wantErr: `compare -format "pdf": want ` + strings.Join(report.CompareFormats, ", ")},
		{name: "adjust", args: func(a *CompareArgs) { a.Adjust = "none" }, wantErr: `compare -adjust "none": want holm or bh`},
		{name: "unknown-run", args: func(a *CompareArgs) { a.Test = "19990101T000000Z" }, wantErr: "19990101T000000Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := compareArgs()
			tc.args(&a)
			v := &compareView{}
			err := o.Compare(a, v)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Compare = %v, want an error with %q", err, tc.wantErr)
				}
			case tc.failed != errors.Is(err, ErrExpectFailed):
				t.Errorf("Compare = %v, want ErrExpectFailed: %v", err, tc.failed)
			}
			golden.Check(t, filepath.Join("testdata", "compareverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}
