package operation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/internal/verdicts"
	"github.com/lab-bench/lab/providers/providertest"
)

// fakeLab is a lab on providertest's fake back end: one pair, two cells;
// expect is the experiment's expect block ("" for none).
func fakeLab(name, expect string) string {
	return fmt.Sprintf(`lab %q {}
provider "fake" "f" {
  region = "test-1"
}
template "t" {
  provider = provider.fake.f
  source   = "debian-12"
}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = [1500, 9000] }
  repeat = 3
  guest { mtu = matrix.mtu }
  iperf3 { duration = "1s" }
%s
}
`, name, expect)
}

// recView is an ApplyView (and ReproduceView) that writes what it is
// asked to show as lines of a transcript; decline makes Approve refuse.
type recView struct {
	lines   []string
	decline bool
	mu      sync.Mutex // the engine sends events from several goroutines
	events  map[string]int
}

func (v *recView) say(format string, a ...any) { v.lines = append(v.lines, fmt.Sprintf(format, a...)) }

func (v *recView) Plan(p *plan.Plan) error {
	n := 0
	for _, g := range p.Groups {
		n += len(g.Runs)
	}
	v.say("plan: %d groups, %d runs", len(p.Groups), n)
	return nil
}
func (v *recView) Reaches(line string) { v.say("reaches: %s", strings.TrimSpace(line)) }
func (v *recView) Approve() error {
	v.say("approve? %v", !v.decline)
	if v.decline {
		return ErrReported
	}
	return nil
}
func (v *recView) NothingToResume(runID string) { v.say("nothing to resume in %s", runID) }
func (v *recView) Events(*plan.Plan) (engine.View, func()) {
	v.events = map[string]int{}
	return engine.ViewFunc(func(e engine.Event) {
			v.mu.Lock()
			defer v.mu.Unlock()
			v.events[e.Type]++
		}), func() {
			var types []string
			for t, n := range v.events {
				types = append(types, fmt.Sprintf("%s×%d", t, n))
			}
			slices.Sort(types)
			v.say("events: %s", strings.Join(types, " "))
		}
}
func (v *recView) Summary(s ApplySummary) {
	v.say("summary: %s, %d runs (%d failed), %d records, keep %v, load error %v", s.Status, s.Outcome.Runs, s.Outcome.Failed, len(s.Records), s.Keep, s.LoadErr)
}
func (v *recView) TeardownTrouble(err error) {
	if err != nil {
		v.say("teardown trouble: %v", err)
	}
}
func (v *recView) LockFile(wrote, kept bool) { v.say("lock file: wrote %v, kept %v", wrote, kept) }
func (v *recView) Checks(runID string, outs []verdicts.Outcome) error {
	for _, o := range outs {
		v.say("check %s: %s", o.Name, o.Verdict)
	}
	return nil
}

// transcript is the view's lines with run ids and temporary paths masked.
func (v *recView) transcript(dir string) string {
	s := strings.Join(v.lines, "\n") + "\n"
	s = strings.ReplaceAll(s, dir, "DIR")
	return regexp.MustCompile(`\d{8}T\d{6}(\.\d+)?Z?(-\d+)?`).ReplaceAllString(s, "RUN")
}

// newFakeOp is an Operation on a new lab directory holding src, on the
// fake back end, with a host lock of its own.
func newFakeOp(t *testing.T, src string) *Operation {
	t.Helper()
	providertest.RegisterFake()
	o, _, _ := newOp(t, src)
	o.Env = []string{"LAB_HOST_LOCK_DIR=" + t.TempDir()}
	return o
}

// fakeArgs are apply's arguments for a test: the fake back end's stand-in
// drivers, one thing at a time, a fixed order.
func fakeArgs() ApplyArgs {
	return ApplyArgs{Parallelism: 1, RunsAtOnce: 1, OrderSeed: 7, OS: providertest.StandInOS, Runner: providertest.StandInRunner}
}

// TestApplyVerb: apply, one operation call, runs in-process on the fake
// back end: plan, approval, the engine, the summary, the lock file, the
// expectations; the transcript of its view is the golden file.
func TestApplyVerb(t *testing.T) {
	for _, tc := range []struct {
		name, expect string
		args         func(a *ApplyArgs)
		decline      bool
		wantErr      error
		// objects is how many objects the fake holds after the apply.
		objects int
	}{
		{name: "complete"},
		{name: "declined", decline: true, wantErr: ErrReported},
		{name: "keep", args: func(a *ApplyArgs) { a.Keep = true }, objects: 3}, // two machines, their link
		{name: "expect-pass", expect: `expect "jumbo changes nothing" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [0.9, 1.1] }
  }`},
		{name: "expect-fail", expect: `expect "jumbo doubles it" {
    ratio = { of = "mtu=9000", over = "mtu=1500", between = [1.9, 2.1] }
  }`, wantErr: ErrExpectFailed},
		{name: "locked", args: func(a *ApplyArgs) { a.Locked = true }, wantErr: errLockedNone},
		{name: "reaches", args: func(a *ApplyArgs) { a.SayReaches = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labID := "verb-" + tc.name
			o := newFakeOp(t, fakeLab(labID, tc.expect))
			a := fakeArgs()
			if tc.args != nil {
				tc.args(&a)
			}
			v := &recView{decline: tc.decline}
			err := o.Apply(context.Background(), a, v)
			if tc.wantErr == errLockedNone {
				if err == nil || !strings.Contains(err.Error(), "-locked needs "+lockfile.FileName) {
					t.Errorf("Apply = %v, want -locked refused", err)
				}
			} else if !errors.Is(err, tc.wantErr) {
				t.Errorf("Apply = %v, want %v", err, tc.wantErr)
			}
			golden.Check(t, filepath.Join("testdata", "applyverb", tc.name+".golden"), v.transcript(o.Dir))
			st, err := o.StateStore().Load()
			if err != nil {
				t.Fatal(err)
			}
			if n := providertest.FakeObjects(st.Owner(labID)); n != tc.objects {
				t.Errorf("the fake back end holds %d objects, want %d", n, tc.objects)
			}
			if len(st.Resources) != tc.objects {
				t.Errorf("the state lists %d objects, want %d", len(st.Resources), tc.objects)
			}
			if tc.objects > 0 {
				destroyAll(t, o, st)
			}
		})
	}
}

// errLockedNone marks the case whose error is -locked's refusal.
var errLockedNone = errors.New("-locked without a lock file")

// destroyAll removes what a -keep apply left, through Destroy.
func destroyAll(t *testing.T, o *Operation, st *state.State) {
	t.Helper()
	w, err := o.Open(Vars{}, "destroy")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	defer o.CloseProviders(w.Providers)
	if err := w.Destroy(context.Background(), st.Owner(w.Lab.Name), false, DestroyOptions{OS: providertest.StandInOS, View: engine.ViewFunc(func(engine.Event) {})}); err != nil {
		t.Errorf("destroy: %v", err)
	}
	if n := providertest.FakeObjects(st.Owner(w.Lab.Name)); n != 0 {
		t.Errorf("after destroy the fake back end holds %d objects", n)
	}
}

// TestApplyVerbResume: a second apply -resume of a complete run has
// nothing to do and says so; a saved plan is carried out without asking.
func TestApplyVerbResume(t *testing.T) {
	o := newFakeOp(t, fakeLab("verb-resume", ""))
	v := &recView{}
	if err := o.Apply(context.Background(), fakeArgs(), v); err != nil {
		t.Fatal(err)
	}
	a := fakeArgs()
	a.Resume = results.AliasLatest
	if err := o.Apply(context.Background(), a, v); err != nil {
		t.Fatal(err)
	}
	w, err := o.Open(Vars{}, "plan")
	if err != nil {
		t.Fatal(err)
	}
	p, err := o.MakePlan(w.Lab, w.State, Vars{}, w.Providers, Selection{OrderSeed: 7})
	o.CloseProviders(w.Providers)
	w.Release()
	if err != nil {
		t.Fatal(err)
	}
	a = fakeArgs()
	a.Saved = p
	if err := o.Apply(context.Background(), a, v); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "applyverb", "resume-and-saved.golden"), v.transcript(o.Dir))
	if _, err := os.Stat(filepath.Join(o.Dir, lockfile.FileName)); err != nil {
		t.Errorf("no lock file after a complete apply: %v", err)
	}
}
