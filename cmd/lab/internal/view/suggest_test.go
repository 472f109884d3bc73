package view

import "testing"

func TestClosest(t *testing.T) {
	verbs := []string{"validate", "plan", "apply", "destroy", "state", "show", "report", "reproduce", "help"}
	for _, tc := range []struct{ word, want string }{
		{"aply", "apply"},
		{"plna", "plan"}, // a transposition is two edits
		{"destory", "destroy"},
		{"stat", "state"},
		{"app", "apply"},      // a prefix, three edits away
		{"valid", "validate"}, // a prefix
		{"repro", "reproduce"},
		{"re", ""}, // report or reproduce: too far from both
		{"xyzzy", ""},
		{"", ""},
		{"apply", "apply"},
	} {
		if got := Closest(tc.word, verbs); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
