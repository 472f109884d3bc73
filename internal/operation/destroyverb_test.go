package operation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/providertest"
)

// destroyView is a DestroyView writing a transcript, as recView does.
type destroyView struct {
	recView
}

func (v *destroyView) SpecBroken() { v.say("the spec does not load: destroying what the state lists") }
func (v *destroyView) Nothing()    { v.say("nothing to destroy") }
func (v *destroyView) DestroyPlan(st *state.State, owner machine.Owner, orphans bool) {
	v.say("destroy %d objects of lab %s, orphans %v", len(st.Resources), owner.Lab, orphans)
}
func (v *destroyView) Events() (engine.View, func()) { return v.recView.Events(nil) }
func (v *destroyView) OtherWorkspaces(lab string, count map[string]int) {
	v.say("other workspaces of %s: %d", lab, len(count))
}
func (v *destroyView) Complete() { v.say("destroy complete") }

// TestDestroyVerb: destroy, one operation call, removes in-process what a
// -keep apply left on the fake back end; it asks first, has nothing to do
// on an empty state, destroys from the state alone when the spec no longer
// loads (but refuses -orphans then), sweeps a lost state's workspace with
// -orphans -workspace and refuses to abandon what the state lacks.
func TestDestroyVerb(t *testing.T) {
	for _, tc := range []struct {
		name string
		// keep applies with -keep first; left is how many objects the
		// fake holds after destroy.
		keep    bool
		left    int
		prepare func(t *testing.T, o *Operation, a *DestroyArgs)
		decline bool
		wantErr string
	}{
		{name: "nothing"},
		{name: "kept", keep: true},
		{name: "declined", keep: true, decline: true, left: 3, wantErr: ErrReported.Error()},
		{name: "broken-spec", keep: true, prepare: func(t *testing.T, o *Operation, _ *DestroyArgs) { breakSpec(t, o) }},
		{name: "broken-orphans", keep: true, left: 3, prepare: func(t *testing.T, o *Operation, a *DestroyArgs) {
			breakSpec(t, o)
			a.Orphans = true
		}, wantErr: "destroy -orphans asks every back end the spec names for this lab's objects, and the spec does not load: lab.hcl:"},
		{name: "lost-state", keep: true, prepare: func(t *testing.T, o *Operation, a *DestroyArgs) {
			st, err := o.StateStore().Load()
			if err != nil {
				t.Fatal(err)
			}
			a.Orphans, a.Workspace = true, st.Owner(st.LabID).Workspace
			if err := os.RemoveAll(o.StateDir()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "abandon-unknown", keep: true, left: 3, prepare: func(_ *testing.T, _ *Operation, a *DestroyArgs) {
			a.Abandon = map[string]bool{"pair.x.server": true}
		}, wantErr: "-abandon pair.x.server: the state lists no such object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labID := "destroy-" + tc.name
			o := newFakeOp(t, fakeLab(labID, ""))
			var owner machine.Owner
			if tc.keep {
				a := fakeArgs()
				a.Keep = true
				if err := o.Apply(context.Background(), a, &recView{}); err != nil {
					t.Fatal(err)
				}
				st, err := o.StateStore().Load()
				if err != nil {
					t.Fatal(err)
				}
				owner = st.Owner(labID)
			}
			a := DestroyArgs{AutoApprove: !tc.decline, OS: providertest.StandInOS}
			if tc.prepare != nil {
				tc.prepare(t, o, &a)
			}
			v := &destroyView{recView{decline: tc.decline}}
			err := o.Destroy(context.Background(), a, v)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Destroy = %v, want %q", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "destroyverb", tc.name+".golden"), v.transcript(o.Dir))
			if n := providertest.FakeObjects(owner); tc.keep && n != tc.left {
				t.Errorf("the fake back end holds %d objects, want %d", n, tc.left)
			}
			if tc.left > 0 { // what the refused destroy left
				if err := o.Destroy(context.Background(), DestroyArgs{AutoApprove: true, OS: providertest.StandInOS}, &destroyView{}); err != nil {
					t.Errorf("clean-up destroy: %v", err)
				}
			}
		})
	}
}

// breakSpec makes the lab's spec fail to load (a pair of a template that
// does not exist).
func breakSpec(t *testing.T, o *Operation) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(o.Dir, "lab.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("pair \"q\" { template = template.none }\n"); err != nil {
		t.Fatal(err)
	}
}

// TestDestroyCommand: the `lab destroy` line lab suggests names the lab
// directory and the variable options, shell-quoted, and leaves out a
// sensitive -var (moved from cmd/lab with the command's making).
func TestDestroyCommand(t *testing.T) {
	lab := &spec.Lab{Sensitive: map[string]bool{"pw": true}}
	for _, tc := range []struct {
		dir  string
		vars Vars
		want string
	}{
		{".", Vars{}, "lab destroy -abandon=pair.bm.server"},
		{"/my labs/x", Vars{Vars: []string{"server=198.18.1.1", "pw=hunter22"}, Files: []string{"prod.tfvars"}},
			"lab '-chdir=/my labs/x' destroy -var-file=prod.tfvars -var=server=198.18.1.1 -abandon=pair.bm.server"},
	} {
		o := &Operation{Dir: tc.dir}
		if got := o.DestroyCommand(tc.vars, lab, "-abandon=pair.bm.server"); got != tc.want {
			t.Errorf("DestroyCommand = %q, want %q", got, tc.want)
		}
	}
}
