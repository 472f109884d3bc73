package machine

import "testing"

// TestParseJumpHop: the hops OpenSSH's ProxyJump takes ("[user@]host[:port]")
// and the refusals guest/ssh and spec share.
func TestParseJumpHop(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want JumpHop
		err  string
	}{
		{"bastion", JumpHop{Host: "bastion"}, ""},
		{" u@b:2222 ", JumpHop{User: "u", Host: "b", Port: 2222}, ""},
		{"[::1]", JumpHop{Host: "[::1]"}, ""}, // a second ":" is not a port
		{"b:0", JumpHop{}, `ProxyJump "b:0": bad port "0"`},
		{"b:x", JumpHop{}, `ProxyJump "b:x": bad port "x"`},
		{"u@", JumpHop{}, `ProxyJump "u@": bad host ""`},
		{"a/b", JumpHop{}, `ProxyJump "a/b": bad host "a/b"`},
	} {
		got, err := ParseJumpHop(tc.spec, tc.spec)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseJumpHop(%q) error %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseJumpHop(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
	if err := CheckProxyJump("a,b:22,u@c"); err != nil {
		t.Errorf("CheckProxyJump of three good hops: %v", err)
	}
	if err := CheckProxyJump("a,,c"); err == nil {
		t.Error("CheckProxyJump accepted an empty hop")
	}
}
