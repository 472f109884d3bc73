package view

import (
	"flag"
	"testing"
)

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

func TestDidYouMean(t *testing.T) {
	verbs := []string{"list", "show", "rm"}
	for _, tc := range []struct{ word, want string }{
		{"lst", ` (did you mean "list"?)`},
		{"shwo", ` (did you mean "show"?)`},
		{"xyzzy", ""},
	} {
		if got := DidYouMean(tc.word, verbs); got != tc.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestUnknownFlagHint(t *testing.T) {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.String("format", "", "")
	fs.Bool("json", false, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-foramt", "html"}, "Did you mean -format?\n"},
		{[]string{"--foramt=html"}, "Did you mean -format?\n"},
		{[]string{"-json", "-jsno"}, "Did you mean -json?\n"},
		{[]string{"-format", "html", "-jsno"}, "Did you mean -json?\n"},
		{[]string{"-xyzzy"}, ""},
		{[]string{"-format", "x"}, ""},    // every flag defined
		{[]string{"run1", "-foramt"}, ""}, // after an argument: not a flag
		{[]string{"--", "-foramt"}, ""},   // after the terminator
		{[]string{"-h"}, ""},              // help is no typo
	} {
		if got := UnknownFlagHint(fs, tc.args); got != tc.want {
			t.Errorf("UnknownFlagHint(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
