package operation

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/redact"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	_ "github.com/lab-bench/lab/providers/local" // registers "local", the default back end
)

// testLab is cmd/lab's onlyLab: two pairs, a 2×2 matrix, 8 runs.
const testLab = `lab "only" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
experiment "e" {
  pairs  = [pair.a, pair.b]
  matrix = { mtu = [1500, 9000], gro = [false, true] }
  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }
  iperf3 { duration = "1s" }
}
`

// newOp is an Operation on a new lab directory holding src as lab.hcl;
// its diagnostics are collected in *diags and its warnings in *warn.
func newOp(t *testing.T, src string) (o *Operation, diags *hcl.Diagnostics, warn *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	diags, warn = &hcl.Diagnostics{}, &bytes.Buffer{}
	o = &Operation{Dir: dir, Stderr: warn, Secrets: &redact.Set{}, Version: "test",
		Diagnostics: func(_ *spec.Lab, d hcl.Diagnostics) { *diags = append(*diags, d...) }}
	return o, diags, warn
}

// TestOpen: Open loads the lab, configures its providers and holds the
// state lock until Release: a second Open meanwhile is refused, naming the
// holder; after Release it succeeds.
func TestOpen(t *testing.T) {
	o, diags, _ := newOp(t, testLab)
	w, err := o.Open(Vars{}, "apply")
	if err != nil {
		t.Fatalf("Open: %v (%v)", err, *diags)
	}
	if w.Lab.Name != "only" || len(w.Providers) == 0 || w.State == nil {
		t.Errorf("workspace: lab %q, %d providers, state %v", w.Lab.Name, len(w.Providers), w.State)
	}
	_, err = o.Open(Vars{}, "destroy")
	var locked *state.LockedError
	if !errors.As(err, &locked) || !strings.Contains(err.Error(), "state is locked by apply") {
		t.Errorf("second Open while the first holds the lock: %v", err)
	}
	o.CloseProviders(w.Providers)
	w.Release()
	w2, err := o.Open(Vars{}, "destroy")
	if err != nil {
		t.Fatalf("Open after Release: %v", err)
	}
	w2.Release()
}

// TestOpenSpecError: a spec that does not load is a SpecError (an
// ErrReported: its diagnostics went to Diagnostics) whose First names the
// file, line and column of the first error.
func TestOpenSpecError(t *testing.T) {
	o, diags, _ := newOp(t, "lab \"bad\" {}\npair \"p\" { template = template.none }\n")
	_, err := o.Open(Vars{}, "apply")
	var se SpecError
	if !errors.Is(err, ErrReported) || !errors.As(err, &se) {
		t.Fatalf("Open of a broken spec: %v, want a SpecError", err)
	}
	if !strings.HasPrefix(se.First, "lab.hcl:2,") {
		t.Errorf("First = %q, want it to start with lab.hcl:2,", se.First)
	}
	if !diags.HasErrors() {
		t.Error("the diagnostics were not passed to Diagnostics")
	}
	unlock, err := o.StateStore().Lock(state.NewLockInfo("bad", "apply"))
	if err != nil {
		t.Fatalf("a spec that does not load left the state locked: %v", err)
	}
	_ = unlock()
}

// TestOnly: -only values parse into selections, keys and values the lab
// lacks are refused naming what it has, and a run matches any selection.
func TestOnly(t *testing.T) {
	var bad Only
	for in, want := range map[string]string{
		"mtu":               `"mtu" is not key=value`,
		"mtu=1500,mtu=9000": "mtu is given twice",
	} {
		if err := bad.Add(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Add(%q) = %v, want %q", in, err, want)
		}
	}
	o, _, _ := newOp(t, testLab)
	lab, err := o.LoadLab(Vars{})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"speed=1":  `no matrix key "speed" (keys: experiment, gro, mtu, pair)`,
		"mtu=1234": `mtu has no value "1234" (values: 1500, 9000)`,
		"pair=c":   `pair has no value "c" (values: a, b)`,
	} {
		var o Only
		if err := o.Add(in); err != nil {
			t.Fatal(err)
		}
		if err := o.Check(lab); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s) = %v, want %q", in, err, want)
		}
	}
	var only Only
	for _, s := range []string{"pair=a,mtu=9000", "gro=true"} {
		if err := only.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := only.Check(lab); err != nil {
		t.Fatal(err)
	}
	if got := only.String(); got != "mtu=9000,pair=a or gro=true" {
		t.Errorf("String = %q", got)
	}
	cell := func(mtu, gro string) []results.CellValue {
		return []results.CellValue{{Name: "mtu", Value: mtu}, {Name: "gro", Value: gro}}
	}
	for _, tc := range []struct {
		run  plan.Run
		want bool
	}{
		{plan.Run{Experiment: "e", Pair: "a", Cell: cell("9000", "false")}, true},
		{plan.Run{Experiment: "e", Pair: "b", Cell: cell("1500", "true")}, true},
		{plan.Run{Experiment: "e", Pair: "b", Cell: cell("9000", "false")}, false},
	} {
		if got := only.Match(tc.run); got != tc.want {
			t.Errorf("Match(%s %v) = %t, want %t", tc.run.Pair, tc.run.Cell, got, tc.want)
		}
	}
	if !(Only{}).Match(plan.Run{}) {
		t.Error("no -only does not select every run")
	}
}

// TestMakePlanSelection: the plan holds only the selected runs and says
// so; a selection of none is an error, a resumed run with nothing left
// ErrNothingToResume.
func TestMakePlanSelection(t *testing.T) {
	o, diags, _ := newOp(t, testLab)
	w, err := o.Open(Vars{}, "plan")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release()
	var only Only
	if err := only.Add("pair=a,mtu=9000"); err != nil {
		t.Fatal(err)
	}
	p, err := o.MakePlan(w.Lab, w.State, Vars{}, w.Providers, Selection{Only: only})
	if err != nil {
		t.Fatalf("MakePlan: %v (%v)", err, *diags)
	}
	if len(p.Runs()) != 2 || p.AllRuns != 8 || p.Selection != "-only mtu=9000,pair=a" {
		t.Errorf("plan: %d of %d runs, selection %q; want 2 of 8, -only mtu=9000,pair=a", len(p.Runs()), p.AllRuns, p.Selection)
	}
	none := Only{{"pair": "zzz"}}
	if _, err := o.MakePlan(w.Lab, w.State, Vars{}, w.Providers, Selection{Only: none}); err == nil ||
		!strings.Contains(err.Error(), "-only pair=zzz selects none of the lab's 8 runs") {
		t.Errorf("a selection of none: %v", err)
	}
	done := &ResumePoint{ID: "r", done: map[string]bool{}, repeats: map[string]int{"e": 1}}
	for _, r := range p.Runs() {
		done.done[results.RecordPath(results.Record{Experiment: r.Experiment, Pair: r.Pair, CellKey: r.CellKey, Repeat: r.Repeat})] = true
	}
	if _, err := o.MakePlan(w.Lab, w.State, Vars{}, w.Providers, Selection{Only: only, Resume: done}); !errors.Is(err, ErrNothingToResume) {
		t.Errorf("resuming a run that has every selected result: %v, want ErrNothingToResume", err)
	}
}

// TestLoadResume refuses a run of another lab, of other spec files, or
// still running, and reads the results of one it can complete.
func TestLoadResume(t *testing.T) {
	o, _, _ := newOp(t, testLab)
	lab, err := o.LoadLab(Vars{})
	if err != nil {
		t.Fatal(err)
	}
	rs := o.ResultStore()
	newRun := func(info results.RunInfo, recs ...results.Record) string {
		t.Helper()
		run, err := rs.NewRun(info)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := run.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := run.Finish(results.StatusInterrupted); err != nil {
			t.Fatal(err)
		}
		return run.ID()
	}
	other := newRun(results.RunInfo{Lab: "other", SpecHash: lab.Hash})
	if _, err := LoadResume(rs, lab, other); err == nil || !strings.Contains(err.Error(), `is of lab "other", not "only"`) {
		t.Errorf("another lab's run: %v", err)
	}
	changed := newRun(results.RunInfo{Lab: "only", SpecHash: "0123456789abcdef"})
	if _, err := LoadResume(rs, lab, changed); err == nil || !strings.Contains(err.Error(), "other spec files than these") {
		t.Errorf("a run of other spec files: %v", err)
	}
	ok := newRun(results.RunInfo{Lab: "only", SpecHash: lab.Hash},
		results.Record{Experiment: "e", Pair: "a", CellKey: "mtu=1500,gro=false", Repeat: 1},
		results.Record{Experiment: "e", Pair: "a", CellKey: "mtu=9000,gro=false", Repeat: 1, Error: "failed"})
	rp, err := LoadResume(rs, lab, ok)
	if err != nil {
		t.Fatal(err)
	}
	if rp.ID != ok || !rp.needs(plan.Run{Experiment: "e", Pair: "a", CellKey: "mtu=9000,gro=false", Repeat: 1}) ||
		rp.needs(plan.Run{Experiment: "e", Pair: "a", CellKey: "mtu=1500,gro=false", Repeat: 1}) {
		t.Errorf("resume point %s: a failed run is not needed again, or a done one is", rp.ID)
	}
}

// TestLockGuard: each drift from the lock file is warned about once; with
// -locked (strict) it stops the apply; without a lock file nothing
// drifts, and what the runs observed is collected either way.
func TestLockGuard(t *testing.T) {
	rec := func(kernel string) results.Record {
		return results.Record{Provenance: results.Provenance{ServerMachine: "pair.a.server", ServerKernel: kernel}}
	}
	locked := lockfile.New()
	locked.Machines["pair.a.server"] = lockfile.Machine{Kernel: "6.1"}

	var warn bytes.Buffer
	g := NewLockGuard(locked, false, &warn)
	for range 2 {
		if err := g.AfterRun(rec("6.8")); err != nil {
			t.Fatalf("AfterRun without -locked: %v", err)
		}
	}
	want := `Warning: drift from ` + lockfile.FileName + `: pair.a.server kernel: locked "6.1", observed "6.8"` + "\n"
	if warn.String() != want || !g.Drifted {
		t.Errorf("warnings %q (drifted %t), want once %q", warn.String(), g.Drifted, want)
	}
	if g.Observed.Machines["pair.a.server"].Kernel != "6.8" {
		t.Errorf("observed: %v", g.Observed.Machines)
	}

	strict := NewLockGuard(locked, true, &warn)
	if err := strict.AfterRun(rec("6.8")); err == nil || !strings.Contains(err.Error(), "(-locked)") {
		t.Errorf("-locked drift: %v", err)
	}
	if err := strict.AfterRun(rec("6.1")); err != nil {
		t.Errorf("-locked, no drift: %v", err)
	}

	first := NewLockGuard(nil, true, &warn)
	if err := first.AfterRun(rec("6.8")); err != nil || first.Drifted {
		t.Errorf("no lock file: %v, drifted %t", err, first.Drifted)
	}
}

// TestStateOnlyWorkspace: with the spec broken, destroy still gets a
// workspace from the state alone, its providers configured with their
// defaults; a state that does not name its lab is refused.
func TestStateOnlyWorkspace(t *testing.T) {
	o, _, _ := newOp(t, testLab)
	w, err := o.StateOnlyWorkspace()
	if err != nil {
		t.Fatalf("an empty state: %v", err)
	}
	w.Release()
	st := &state.State{Resources: []state.Resource{{ProviderKey: "local.default"}}}
	st.Resources[0].Address, st.Resources[0].Kind, st.Resources[0].Status = "pair.a.server", "machine", "created"
	if err := o.StateStore().Save(st); err != nil {
		t.Fatal(err)
	}
	if _, err := o.StateOnlyWorkspace(); err == nil || !strings.Contains(err.Error(), "does not record its lab") {
		t.Errorf("a state without its lab: %v", err)
	}
}

// TestRecordArgvRedacted: the command lines kept beside a tool's output
// (bench.Raw's server_argv and client_argv) reach the record through the
// lab's redact set, as the output does, and read back as written.
func TestRecordArgvRedacted(t *testing.T) {
	secrets := &redact.Set{}
	secrets.Add("token", "s3cr3t-token")
	o := &Operation{Dir: t.TempDir(), Secrets: secrets}
	rs := o.ResultStore()
	run, err := rs.NewRun(results.RunInfo{Lab: "l", Experiments: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := results.Record{Lab: "l", Experiment: "e", Pair: "p", CellKey: "mtu=1500", Repeat: 1,
		Raw: bench.Raw{Client: "{}", ServerArgv: []string{"iperf3", "-s", "-1"},
			ClientArgv: []string{"iperf3", "-c", "198.18.0.1", "--title", "s3cr3t-token"}}}
	if err := run.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	_, recs, err := rs.Load(run.ID())
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v, %d records", err, len(recs))
	}
	got := recs[0].Raw
	if strings.Join(got.ServerArgv, " ") != "iperf3 -s -1" || strings.Join(got.ClientArgv, " ") != "iperf3 -c 198.18.0.1 --title "+redact.Text {
		t.Errorf("argv read back: server %q, client %q", got.ServerArgv, got.ClientArgv)
	}
}
