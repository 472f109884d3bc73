package main

import (
	"testing"

	"github.com/lab-bench/lab/internal/spec"
)

func TestDestroyCommand(t *testing.T) {
	lab := &spec.Lab{Sensitive: map[string]bool{"pw": true}}
	tests := []struct {
		dir  string
		vars varFlags
		want string
	}{
		{".", varFlags{}, "lab destroy -abandon=pair.bm.server"},
		{"/my labs/x", varFlags{vars: []string{"server=198.18.1.1", "pw=hunter22"}, files: []string{"prod.tfvars"}},
			"lab '-chdir=/my labs/x' destroy -var-file=prod.tfvars -var=server=198.18.1.1 -abandon=pair.bm.server"},
	}
	for _, tc := range tests {
		g := &globals{dir: tc.dir}
		if got := destroyCommand(g, tc.vars, lab, "-abandon=pair.bm.server"); got != tc.want {
			t.Errorf("destroyCommand = %q, want %q", got, tc.want)
		}
	}
}
