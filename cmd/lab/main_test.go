package main

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/report"
)

// TestUsageListsEveryVerb: `lab -h` and `lab help` name every verb with a
// one-line summary.
func TestUsageListsEveryVerb(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}} {
		code, out, errOut := runLab(t, "", args...)
		text := out + errOut
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, v := range verbs() {
			if !strings.Contains(text, "  "+v.name+strings.Repeat(" ", max(1, 11-len(v.name)))+v.summary+"\n") {
				t.Errorf("%v does not list %s with its summary:\n%s", args, v.name, text)
			}
			if strings.Contains(v.summary, "\n") {
				t.Errorf("%s's summary is more than one line", v.name)
			}
		}
	}
}

// TestUsageNamesEveryFormatAndShell: lab -h names every report format
// and every completion shell, from the tables the verbs use (issue 35: it
// listed 6 of 11 formats and no fish).
func TestUsageNamesEveryFormatAndShell(t *testing.T) {
	var b strings.Builder
	usage(&b)
	for _, w := range append(slices.Clone(report.Formats), slices.Collect(maps.Keys(shells))...) {
		if !regexp.MustCompile(`[ (]` + regexp.QuoteMeta(w) + `[,;) ]`).MatchString(b.String()) {
			t.Errorf("lab -h does not name %q:\n%s", w, b.String())
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		want     string // on stdout, or stderr for an error
	}{
		{[]string{"-version"}, 0, "lab 0."},
		{[]string{"help", "plan"}, 0, "Usage: lab plan"},
		{[]string{"help", "fmt"}, 0, "-recursive"},
		{[]string{"help", "apply"}, 0, "-locked"},
		{[]string{"help", "report"}, 0, "svg, png"},
		{[]string{"help", "help"}, 0, "Verbs:"},
		{[]string{"help", "nope"}, 1, `lab has no verb "nope"`},
		// Did-you-mean for help, state's subcommands and flags (issue 35).
		{[]string{"help", "aply"}, 1, `lab has no verb "aply" (did you mean "apply"?)`},
		{[]string{"state", "lst"}, 1, `no subcommand "lst" (did you mean "list"?)`},
		{[]string{"report", "-foramt", "html"}, 1, "not defined: -foramt\nDid you mean -format?\nUsage: lab report"},
		{[]string{"help", "plan", "apply"}, 1, "help takes at most one argument"},
		{[]string{"-no-color", "version"}, 0, "lab "},
		{[]string{"version", "-no-color"}, 0, "lab "},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runLab(t, "", tc.args...)
			got := out
			if tc.wantCode != 0 {
				got = errOut
			}
			if code != tc.wantCode || !strings.Contains(got, tc.want) {
				t.Errorf("exit %d (want %d); lacks %q:\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, tc.want, out, errOut)
			}
		})
	}
}

func TestNoColor(t *testing.T) {
	tests := []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"NO_COLOR=1"}, true},
		{[]string{"NO_COLOR="}, false}, // set but empty: no-color.org says ignore it
		{[]string{"NO_COLORS=1"}, false},
	}
	for _, tc := range tests {
		if got := noColorEnv(tc.env); got != tc.want {
			t.Errorf("noColorEnv(%q) = %t, want %t", tc.env, got, tc.want)
		}
	}
	g := &globals{noColor: true}
	if useColor(g, nil) {
		t.Error("useColor with -no-color")
	}
}

// TestUnknownVerbSuggests: an unknown verb exits 1 with lab's usage and,
// when one is near, "Did you mean …?" naming it (issue 25 §3).
func TestUnknownVerbSuggests(t *testing.T) {
	for _, tc := range []struct{ verb, want string }{
		{"aply", `Did you mean "apply"?`},
		{"repro", `Did you mean "reproduce"?`},
		{"xyzzy", ""},
	} {
		code, out, errOut := runLab(t, "", tc.verb)
		if code != exitError || out != "" || !strings.Contains(errOut, `lab: unknown verb "`+tc.verb+`"`) || !strings.Contains(errOut, "Verbs:") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", tc.verb, code, out, errOut)
		}
		if tc.want != "" && !strings.Contains(errOut, tc.want) || tc.want == "" && strings.Contains(errOut, "Did you mean") {
			t.Errorf("%s: want %q:\n%s", tc.verb, tc.want, errOut)
		}
	}
}

// TestHelpGoesToStdout: help asked for — `lab -h` as `lab help`, and
// `lab help state SUBCOMMAND` — is printed to stdout with exit 0, as
// Terraform prints it; a wrong global flag prints the usage to stderr,
// exit 1 (issue 25 §3).
func TestHelpGoesToStdout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "Verbs:"},
		{[]string{"-help"}, "Verbs:"},
		{[]string{"help", "state", "rm"}, "Usage: lab state rm"},
		{[]string{"help", "state", "show"}, "Usage: lab state show"},
		{[]string{"help", "state"}, "Subcommands:"},
	} {
		code, out, errOut := runLab(t, "", tc.args...)
		if code != exitOK || !strings.Contains(out, tc.want) || errOut != "" {
			t.Errorf("%v: exit %d, stdout lacks %q or stderr is not empty:\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.want, out, errOut)
		}
	}
	code, out, errOut := runLab(t, "", "-bogus")
	if code != exitError || out != "" || !strings.Contains(errOut, "flag provided but not defined: -bogus") || !strings.Contains(errOut, "Verbs:") {
		t.Errorf("-bogus: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, _, errOut := runLab(t, "", "help", "state", "nope"); code != exitError || !strings.Contains(errOut, `no subcommand "nope"`) {
		t.Errorf("help state nope: exit %d\n%s", code, errOut)
	}
}

// TestChdirNoSuchDirectory: -chdir naming no directory is an error naming
// it, exit 1, for every verb — not "No lab files" (issue 25 §3).
func TestChdirNoSuchDirectory(t *testing.T) {
	missing := t.TempDir() + "/nonexistent"
	for _, verb := range []string{"validate", "plan", "init", "state"} {
		code, out, errOut := runLab(t, "", "-chdir="+missing, verb)
		if code != exitError || !strings.Contains(errOut, "Error: -chdir="+missing+": no such directory") || strings.Contains(errOut, "No lab files") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", verb, code, out, errOut)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("init created %s", missing)
	}
}

// TestVersionJSON: `lab version -json` has the fields documented in the
// README, modelled on `terraform version -json` (issue 25 §3).
func TestVersionJSON(t *testing.T) {
	code, out, errOut := runLab(t, "", "version", "-json")
	var v map[string]string
	if err := json.Unmarshal([]byte(out), &v); code != exitOK || err != nil {
		t.Fatalf("exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	want := map[string]string{"lab_version": Version(), "go": runtime.Version(), "platform": runtime.GOOS + "_" + runtime.GOARCH}
	if !maps.Equal(v, want) {
		t.Errorf("version -json = %v, want %v", v, want)
	}
}
