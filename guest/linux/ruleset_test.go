package linux

import "testing"

func TestCheckRuleset(t *testing.T) {
	tests := []struct {
		body string
		want string // "" for accepted
	}{
		{"chain fwd {\n  type filter hook forward priority 0; policy accept;\n  ct state established accept\n}", ""},
		{"chain c { comment \"} not a brace\"; }", ""},
		{"# } a comment\nchain c { }", ""},
		{"chain included { }", ""},
		{"", ""},
		{"}\ntable inet evil { chain c { } }", `firewall ruleset line 1, column 1: "}" closes a brace the ruleset did not open: it would end lab's table`},
		{"chain c { }\n}\ntable inet evil {\n", `firewall ruleset line 2, column 1: "}" closes a brace the ruleset did not open: it would end lab's table`},
		{"chain c {\n  include \"/etc/shadow\"\n}", `firewall ruleset line 2, column 3: "include" is not allowed: it would read a file of the guest as root`},
		{"INCLUDE \"/x\"", `firewall ruleset line 1, column 1: "include" is not allowed: it would read a file of the guest as root`},
		{"chain c {\n  chain d {\n}", `firewall ruleset line 1, column 9: "{" is never closed`},
		{"chain c { comment \"x }\n}", `firewall ruleset line 1, column 23: unterminated string`},
	}
	for _, tt := range tests {
		err := CheckRuleset(tt.body)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckRuleset(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// FuzzCheckRuleset: never panics; an accepted ruleset has balanced braces
// outside strings and comments.
func FuzzCheckRuleset(f *testing.F) {
	f.Add("chain c { ct state established accept }")
	f.Add("}\ntable inet evil { }")
	f.Add("include \"/etc/shadow\"")
	f.Add("chain c { comment \"}\" } # }")
	f.Fuzz(func(t *testing.T, body string) {
		_ = CheckRuleset(body)
	})
}
