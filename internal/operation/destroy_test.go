package operation

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	_ "github.com/lab-bench/lab/providers/hosts" // registers "hosts"
	_ "github.com/lab-bench/lab/providers/local" // registers "local"
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
		{Instance: machine.Instance{Address: "pair.bm.server", Kind: "machine"}, ProviderKey: "hosts.bench"},
		{Instance: machine.Instance{Address: "pair.bm.link", Kind: "link"}, ProviderKey: "hosts.bench"},
		{Instance: machine.Instance{Address: "pair.veth.server", Kind: "machine"}, ProviderKey: "local.default"},
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
		err := CheckAbandon(st, provs, map[string]bool{tc.addr: true})
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("-abandon %s: %v, want %q", tc.addr, err, tc.wantErr)
		}
	}
}
