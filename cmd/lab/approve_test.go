package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// quickstartDir is a fresh lab directory holding examples/quickstart's
// spec, with a state listing two of its machines when withState.
func quickstartDir(t *testing.T, withState bool) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if withState {
		st := &state.State{Lineage: state.NewLineage(), LabID: "quickstart", Dir: dir}
		for _, addr := range []string{"pair.veth.server", "pair.veth.client"} {
			st.Put(state.Resource{Instance: machine.Instance{Address: addr, Kind: "machine", Provider: "local"},
				ProviderKey: "local.default", Status: state.Created})
		}
		if err := (state.Store{Dir: filepath.Join(dir, ".lab")}).Save(st); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDeclinedApprovalExits1: answering anything but "yes" to apply's or
// destroy's prompt cancels and exits 1, as Terraform does (issue 25 §3);
// nothing is created or destroyed.
func TestDeclinedApprovalExits1(t *testing.T) {
	for _, tc := range []struct {
		verb, answer, want string
		withState          bool
	}{
		{"apply", "no\n", "Apply cancelled.", false},
		{"apply", "y\n", "Apply cancelled.", false},
		{"destroy", "no\n", "Destroy cancelled.", true},
	} {
		t.Run(tc.verb+" "+strings.TrimSpace(tc.answer), func(t *testing.T) {
			dir := quickstartDir(t, tc.withState)
			statePath := filepath.Join(dir, ".lab", state.FileName)
			before, _ := os.ReadFile(statePath)
			code, out, errOut := runLab(t, tc.answer, "-chdir="+dir, tc.verb)
			if code != exitError || !strings.Contains(out, "Only 'yes' will be accepted: "+tc.want+"\n") {
				t.Errorf("exit %d (want 1), stdout lacks %q:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
			if strings.Contains(errOut, "Error:") {
				t.Errorf("a declined prompt is not an error to report:\n%s", errOut)
			}
			if after, _ := os.ReadFile(statePath); string(after) != string(before) {
				t.Errorf("the state changed:\n%s", after)
			}
		})
	}
}

// TestInputFalse: -input=false never prompts: without -auto-approve apply
// and destroy refuse at once with an error saying what to add, exit 1,
// with nothing done; with it they go ahead (issue 25 §3).
func TestInputFalse(t *testing.T) {
	for _, verb := range []string{"apply", "destroy"} {
		dir := quickstartDir(t, verb == "destroy")
		statePath := filepath.Join(dir, ".lab", state.FileName)
		before, _ := os.ReadFile(statePath)
		code, out, errOut := runLab(t, "yes\n", "-chdir="+dir, verb, "-input=false")
		if code != exitError || strings.Contains(out, "Do you want") ||
			!strings.Contains(errOut, "Error: "+verb+" needs approval and -input=false forbids asking for it: add -auto-approve") {
			t.Errorf("%s -input=false: exit %d\nstdout:\n%s\nstderr:\n%s", verb, code, out, errOut)
		}
		if after, _ := os.ReadFile(statePath); string(after) != string(before) {
			t.Errorf("%s -input=false: the state changed:\n%s", verb, after)
		}
	}
	g := &globals{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
	if a, _, err := parseApplyFlags(g, []string{"-input=false", "-auto-approve"}); err != nil || !a.AutoApprove {
		t.Errorf("apply -input=false -auto-approve: %+v, %v", a, err)
	}
	code, out, errOut := runLab(t, "", "-chdir="+quickstartDir(t, false), "destroy", "-input=false", "-auto-approve")
	if code != exitOK || !strings.Contains(out, "Nothing to destroy") {
		t.Errorf("destroy -input=false -auto-approve: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
