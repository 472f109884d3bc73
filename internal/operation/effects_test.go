package operation

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// TestEffectsVerb: effects, one operation call, fits a run applied
// in-process on the fake back end: the latest by default, one metric, an
// alias; an unknown metric, an unknown run and a lab without runs are
// errors.
func TestEffectsVerb(t *testing.T) {
	o := newFakeOp(t, fakeLab("effects", ""))
	if err := o.Apply(context.Background(), fakeArgs(), &recView{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, run, metric, wantErr string
		op                         *Operation
	}{
		{name: "latest"},
		{name: "metric", metric: results.MetricThroughput},
		{name: "alias", run: results.AliasLatest, metric: results.MetricThroughput},
		{name: "bad-metric", metric: "speed", wantErr: `no metric "speed"`},
		{name: "unknown-run", run: "19990101T000000Z", wantErr: "19990101T000000Z"},
		{name: "no-runs", op: newFakeOp(t, fakeLab("effects-none", "")), wantErr: "run `lab apply` first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := o
			if tc.op != nil {
				op = tc.op
			}
			info, effs, err := op.Effects(tc.run, tc.metric)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Effects = %v, want an error with %q", err, tc.wantErr)
			}
			v := &recView{}
			v.say("run %s of lab %q", info.ID, info.Lab)
			for _, fe := range effs {
				var metrics []string
				for _, m := range fe.Metrics {
					metrics = append(metrics, m.Metric)
				}
				v.say("%s / %s: %d runs in %d cells, metrics %s", fe.Experiment, fe.Pair, fe.Runs, fe.Cells, strings.Join(metrics, " "))
			}
			golden.Check(t, filepath.Join("testdata", "effectsverb", tc.name+".golden"), v.transcript(op.Dir))
		})
	}
}
