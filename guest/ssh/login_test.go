package ssh

import "testing"

func TestCheckLogin(t *testing.T) {
	tests := []struct {
		name string
		in   Login
		want []string // attributes reported
	}{
		{"defaults filled", Login{}, nil},
		{"all valid", Login{Port: 2222, User: "lab", PrivateKeyFile: "/k"}, nil},
		{"bad port", Login{Port: 70000}, []string{"port"}},
		{"bad user", Login{User: "root; rm -rf /"}, []string{"user"}},
		{"key path with newline", Login{PrivateKeyFile: "/k\nx"}, []string{"private_key_file"}},
		{"bad host key", Login{HostKey: "not a key"}, []string{"host_key"}},
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
