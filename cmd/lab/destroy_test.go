package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// TestDestroyOrphansNeedsTheSpec: `destroy -orphans` of a spec that does
// not load (a required variable without a value) refuses with exit 1,
// naming the loader's error at file:line and what plain destroy can do,
// instead of sweeping no back end and saying "Destroy complete." (issue
// 20, section 6). Nothing is destroyed, so no namespaces are needed.
func TestDestroyOrphansNeedsTheSpec(t *testing.T) {
	src, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	body := "variable \"site\" {\n  type = string\n}\n" + string(src)
	for _, tc := range []struct {
		name    string
		objects int // in the state
		want    []string
	}{
		{"empty state", 0, nil},
		{"state with objects", 2, []string{"`lab destroy` without -orphans destroys the 2 object(s) the state lists"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			var before []byte
			if tc.objects > 0 {
				st := &state.State{Lineage: state.NewLineage(), LabID: "quickstart"}
				for _, addr := range []string{"pair.veth.server", "pair.veth.client"}[:tc.objects] {
					st.Put(state.Resource{Instance: machine.Instance{Address: addr, Kind: "machine", Provider: "local"},
						ProviderKey: "local.default", Status: state.Created})
				}
				store := state.Store{Dir: filepath.Join(dir, ".lab")}
				if err := store.Save(st); err != nil {
					t.Fatal(err)
				}
				before, _ = os.ReadFile(store.Path())
			}
			code, out, errOut := runLab(t, "", "-chdir="+dir, "destroy", "-auto-approve", "-orphans")
			want := append([]string{
				"lab.hcl:1,1: No value for required variable",
				"set it with -var site=",
				"destroy -orphans asks every back end the spec names",
				"Nothing was destroyed; fix that",
			}, tc.want...)
			for _, w := range want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q", w)
				}
			}
			if code != 1 || strings.Contains(out, "Destroy complete") {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if tc.objects > 0 {
				if after, _ := os.ReadFile(filepath.Join(dir, ".lab", state.FileName)); string(after) != string(before) {
					t.Errorf("the state changed:\n%s", after)
				}
			}
		})
	}
}

// TestDestroyWithBrokenSpecRefusesACopy: destroying from the state alone
// (the spec does not load) still refuses a copied lab directory's state,
// whose objects are the original's.
func TestDestroyWithBrokenSpecRefusesACopy(t *testing.T) {
	orig, copyDir := t.TempDir(), t.TempDir()
	st := &state.State{Lineage: state.NewLineage(), LabID: "quickstart", Dir: orig}
	st.Put(state.Resource{Instance: machine.Instance{Address: "pair.veth.server", Kind: "machine", Provider: "local"},
		ProviderKey: "local.default", Status: state.Created})
	for _, dir := range []string{orig, copyDir} {
		s := *st
		if err := (state.Store{Dir: filepath.Join(dir, ".lab")}).Save(&s); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte("lab \"quickstart\" {}\npair \"oops\" {\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(copyDir, ".lab", state.FileName))
	code, out, errOut := runLab(t, "", "-chdir="+copyDir, "destroy", "-auto-approve")
	if code != 1 || !strings.Contains(errOut, "looks like a copy") || strings.Contains(out, "Destroy complete") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(copyDir, ".lab", state.FileName)); string(after) != string(before) {
		t.Errorf("the copy's state changed:\n%s", after)
	}
}
