package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// stateWith writes a lab directory whose state lists a link and a machine.
func stateWith(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	created := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	owner := machine.Owner{Lab: "st", Workspace: "ws1"}
	st := &state.State{Lineage: "lin", LabID: "st", Resources: []state.Resource{
		{Instance: machine.Instance{Address: "pair.p.link", Provider: "local", Kind: "link", ID: "veth-1", Name: "st-p-link", Owner: owner},
			ProviderKey: "local.default", Status: state.Created, Shape: "abc", CreatedAt: created},
		{Instance: machine.Instance{Address: "pair.p.server", Provider: "local", Kind: "machine", ID: "ns-1", Name: "st-p-s", Owner: owner,
			Endpoint: &machine.Endpoint{Addr: "10.0.0.1", Iface: "eth0", CPUs: []int{0}}, Attrs: map[string]string{"netns": "lab-st-p-s"}},
			ProviderKey: "local.default", Status: state.Created, Shape: "abc", CreatedAt: created},
	}}
	if err := (state.Store{Dir: filepath.Join(dir, ".lab")}).Save(st); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestStateShowAndRm(t *testing.T) {
	dir := stateWith(t)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"show", []string{"state", "show", "pair.p.server"}, 0,
			[]string{"address      pair.p.server\n", "provider     local.default (local)\n", "status       created\n", "endpoint     10.0.0.1 eth0\n", "attrs.netns  lab-st-p-s\n"}},
		{"show unknown", []string{"state", "show", "pair.q.server"}, 1, []string{"the state lists no pair.q.server (it lists: pair.p.link, pair.p.server)"}},
		{"show needs an address", []string{"state", "show"}, 1, []string{"state show takes one address"}},
		{"rm unknown changes nothing", []string{"state", "rm", "pair.p.server", "nope"}, 1, []string{"the state lists no nope"}},
		{"unknown subcommand", []string{"state", "mv"}, 1, []string{`no subcommand "mv"`, "Subcommands:"}},
		{"help", []string{"help", "state"}, 0, []string{"show ADDR", "rm ADDR…"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runLab(t, "", append([]string{"-chdir=" + dir}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
	code, out, _ := runLab(t, "", "-chdir="+dir, "state", "show", "-json", "pair.p.server")
	if code != 0 {
		t.Fatalf("show -json: exit %d", code)
	}
	golden.Check(t, "testdata/state/show.json", out)

	code, out, errOut := runLab(t, "", "-chdir="+dir, "state", "rm", "pair.p.server")
	if code != 0 || !strings.Contains(out, "Removed pair.p.server from the state.") {
		t.Fatalf("rm: exit %d\n%s%s", code, out, errOut)
	}
	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != 1 || st.Resources[0].Address != "pair.p.link" {
		t.Errorf("after rm the state lists %+v", st.Resources)
	}
}
