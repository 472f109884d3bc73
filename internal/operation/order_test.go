package operation

import (
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestResumeKeepsTheRunOrder: a resumed run's order seed (run.json) seeds
// the plan that fills it in, unless -order-seed says otherwise, and the
// plan made with it shows that seed.
func TestResumeKeepsTheRunOrder(t *testing.T) {
	o, _, _ := newOp(t, testLab)
	w, err := o.Open(Vars{}, "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	rs := o.ResultStore()
	run, err := rs.NewRun(results.RunInfo{Lab: "only", SpecHash: w.Lab.Hash, OrderSeed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(results.StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	rp, err := LoadResume(rs, w.Lab, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sel  Selection
		want int64
	}{
		{"resume", Selection{Resume: rp}, 42},
		{"resume with -order-seed", Selection{Resume: rp, OrderSeed: 7}, 7},
		{"-order-seed", Selection{OrderSeed: 9}, 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := o.MakePlan(w.Lab, w.State, Vars{}, w.Providers, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			if p.OrderSeed != tc.want {
				t.Errorf("plan's order seed %d, want %d", p.OrderSeed, tc.want)
			}
		})
	}
}

// TestRunInfoRecordsTheOrderSeed: a new run's run.json holds the seed of
// the plan it runs, and each experiment's block design.
func TestRunInfoRecordsTheOrderSeed(t *testing.T) {
	o, _, _ := newOp(t, testLab)
	lab, err := o.LoadLab(Vars{})
	if err != nil {
		t.Fatal(err)
	}
	rs := o.ResultStore()
	run, _, err := o.newRun(lab, rs, "", nil, 13, nil, map[string]string{"e": results.DesignFoldover})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	info, _, err := rs.Load(run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if info.OrderSeed != 13 {
		t.Errorf("run.json order_seed %d, want 13", info.OrderSeed)
	}
	if info.DesignOf("e") != results.DesignFoldover || info.DesignOf("other") != results.DesignBlocks {
		t.Errorf("run.json design %v: want e foldover, an experiment it does not name plain blocks", info.Design)
	}
}
