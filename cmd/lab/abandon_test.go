package main

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/spec"
	"github.com/lab-bench/lab/state"
)

func TestCheckAbandon(t *testing.T) {
	provs := map[string]providers.Provider{}
	for key, typ := range map[string]string{"hosts.bench": "hosts", "local.default": "local"} {
		p, err := providers.New(typ)
		if err != nil {
			t.Fatal(err)
		}
		provs[key] = p
	}
	st := &state.State{Resources: []state.Resource{
		{Instance: providers.Instance{Address: "pair.bm.server", Kind: "machine"}, ProviderKey: "hosts.bench"},
		{Instance: providers.Instance{Address: "pair.bm.link", Kind: "link"}, ProviderKey: "hosts.bench"},
		{Instance: providers.Instance{Address: "pair.veth.server", Kind: "machine"}, ProviderKey: "local.default"},
	}}
	tests := []struct {
		addr, wantErr string
	}{
		{"pair.bm.server", ""},
		{"pair.bm.link", "not a borrowed machine"},
		{"pair.veth.server", "not a borrowed machine"},
		{"pair.gone.server", "the state lists no such object"},
	}
	for _, tc := range tests {
		err := checkAbandon(st, provs, map[string]bool{tc.addr: true})
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("-abandon %s: %v, want %q", tc.addr, err, tc.wantErr)
		}
	}
}

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
