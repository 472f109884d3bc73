package operation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/plan"
)

// planView is a PlanView writing a transcript, as recView does.
type planView struct{ recView }

func (v *planView) Plan(p *plan.Plan, vars []string) error {
	if err := v.recView.Plan(p); err != nil {
		return err
	}
	v.say("vars: %q", vars)
	return nil
}
func (v *planView) Saved(out string) { v.say("saved to %s", filepath.Base(out)) }

// TestPlanVerb: plan, one operation call, plans in-process on the fake
// back end: the selection narrows it, -out saves it (and apply carries the
// saved plan out), a sensitive -var is never saved and an unknown -only
// key is refused before any provider is configured.
func TestPlanVerb(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    PlanArgs
		wantErr string
		changes bool
	}{
		{name: "all", changes: true},
		{name: "only", args: PlanArgs{Only: Only{{"mtu": "9000"}}}, changes: true},
		{name: "out", args: PlanArgs{Out: "saved.plan", Vars: Vars{Vars: []string{"note=hello"}}}, changes: true},
		{name: "sensitive", args: PlanArgs{Out: "saved.plan", Vars: Vars{Vars: []string{"token=s3cret"}}}, wantErr: `variable "token" is sensitive`},
		{name: "bad-only", args: PlanArgs{Only: Only{{"speed": "1"}}}, wantErr: `no matrix key "speed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newFakeOp(t, fakeLab("plan-"+tc.name, "")+`variable "note" {
  default = ""
}
variable "token" {
  default   = ""
  sensitive = true
}
`)
			if tc.args.Out != "" {
				tc.args.Out = filepath.Join(o.Dir, tc.args.Out)
			}
			v := &planView{}
			changes, err := o.Plan(context.Background(), tc.args, v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Plan = %v, want %q", err, tc.wantErr)
			}
			if changes != tc.changes {
				t.Errorf("changes = %v, want %v", changes, tc.changes)
			}
			golden.Check(t, filepath.Join("testdata", "planverb", tc.name+".golden"), v.transcript(o.Dir))
			if tc.args.Out == "" || err != nil {
				return
			}
			saved, err := plan.Load(tc.args.Out)
			if err != nil {
				t.Fatal(err)
			}
			a := fakeArgs()
			a.Saved = saved
			av := &recView{}
			if err := o.Apply(context.Background(), a, av); err != nil {
				t.Fatalf("apply of the saved plan: %v", err)
			}
			if strings.Contains(strings.Join(av.lines, "\n"), "approve?") {
				t.Error("apply of a saved plan asked for approval")
			}
			if _, err := os.Stat(filepath.Join(o.Dir, "results")); err != nil {
				t.Errorf("no results after applying the saved plan: %v", err)
			}
		})
	}
}
