package ssh

import (
	"testing"

	"github.com/lab-bench/lab/machine"
)

func TestCheckLogin(t *testing.T) {
	tests := []struct {
		name string
		in   machine.Login
		want []string // attributes reported
	}{
		{"defaults filled", machine.Login{}, nil},
		{"all valid", machine.Login{Port: 2222, User: "lab", PrivateKeyFile: "/k"}, nil},
		{"bad port", machine.Login{Port: 70000}, []string{"port"}},
		{"bad user", machine.Login{User: "root; rm -rf /"}, []string{"user"}},
		{"key path with newline", machine.Login{PrivateKeyFile: "/k\nx"}, []string{"private_key_file"}},
		{"bad host key", machine.Login{HostKey: "not a key"}, []string{"host_key"}},
	}
	for _, tc := range tests {
		l := tc.in
		got := CheckLogin(&l)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v, want %v", tc.name, got, tc.want)
			continue
		}
		for i, p := range got {
			if p.Attr != tc.want[i] || p.Summary == "" || p.Detail == "" {
				t.Errorf("%s: %+v, want attribute %s", tc.name, p, tc.want[i])
			}
		}
		if tc.name == "defaults filled" && (l.Port != DefaultPort || l.User != DefaultUser || l.PrivateKeyFile != DefaultPrivateKeyFile) {
			t.Errorf("defaults not filled: %+v", l)
		}
	}
}
