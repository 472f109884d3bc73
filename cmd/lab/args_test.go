package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsChecked runs every verb with an argument too many and with a
// flag after a positional argument: each is a usage error (exit 1, the
// reason and the verb's usage on stderr), never silently ignored.
func TestArgumentsChecked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte("lab \"args\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"validate extra", []string{"validate", "foo", "bar"}, "validate takes no arguments; got 2: foo bar"},
		{"validate flag after argument", []string{"validate", "foo", "-var", "x=1"}, "flag -var comes after the argument \"foo\""},
		{"plan extra", []string{"plan", "foo"}, "plan takes no arguments"},
		{"plan flag after argument", []string{"plan", "foo", "-json"}, "flag -json comes after"},
		{"apply extra", []string{"apply", "a.plan", "b.plan"}, "apply takes at most one argument, a saved plan file; got 2"},
		{"apply flag after argument", []string{"apply", "a.plan", "-auto-approve"}, "flag -auto-approve comes after the argument \"a.plan\""},
		{"destroy extra", []string{"destroy", "now"}, "destroy takes no arguments"},
		{"destroy flag after argument", []string{"destroy", "now", "-auto-approve"}, "flag -auto-approve comes after"},
		{"state list extra", []string{"state", "list", "x"}, "state list takes no arguments"},
		{"state list flag after argument", []string{"state", "list", "x", "-json"}, "flag -json comes after"},
		{"report extra", []string{"report", "a", "b"}, "several runs (2: a b) with -format table: only -format html overlays runs; use lab compare A B for two"},
		{"report flag after argument", []string{"report", "RUN", "-format", "csv"}, "flag -format comes after the argument \"RUN\""},
		{"check flag after argument", []string{"check", "RUN", "-json"}, "flag -json comes after"},
		{"compare too few", []string{"compare", "a"}, "compare takes two run ids, BASE and TEST"},
		{"compare none", []string{"compare"}, "got none"},
		{"compare too many", []string{"compare", "a", "b", "c"}, "got 3: a b c"},
		{"compare flag after arguments", []string{"compare", "a", "b", "-json"}, "flag -json comes after the argument \"a\""},
		{"init extra", []string{"init", "x"}, "init takes no arguments"},
		{"init flag after argument", []string{"init", "x", "-upgrade"}, "flag -upgrade comes after"},
		{"version extra", []string{"version", "x"}, "version takes no arguments"},
		{"show extra", []string{"show", "a", "b"}, "show takes at most one argument, a saved plan file or a run id; got 2"},
		{"show flag after argument", []string{"show", "RUN", "-json"}, "flag -json comes after the argument \"RUN\""},
		{"fmt flag after argument", []string{"fmt", "lab.hcl", "-check"}, "flag -check comes after the argument \"lab.hcl\""},
		{"help extra", []string{"help", "plan", "apply"}, "help takes at most one argument, a verb; got 2"},
		{"state show extra", []string{"state", "show", "a", "b"}, "state show takes one address"},
		{"state show flag after argument", []string{"state", "show", "a", "-json"}, "flag -json comes after"},
		{"state rm flag after argument", []string{"state", "rm", "a", "-lock-timeout=1s"}, "flag -lock-timeout=1s comes after"},
		{"after -- a dash is an argument", []string{"validate", "--", "-x"}, "validate takes no arguments; got 1: -x"},
		{"apply no runs at once", []string{"apply", "-runs-at-once=0"}, `invalid value "0" for flag -runs-at-once: want a whole number ≥ 1`},
		{"apply negative runs at once", []string{"apply", "-runs-at-once=-1"}, `invalid value "-1" for flag -runs-at-once: want a whole number ≥ 1`},
		{"apply runs at once not a number", []string{"apply", "-runs-at-once=two"}, `invalid value "two" for flag -runs-at-once: want a whole number ≥ 1`},
		{"apply no parallelism", []string{"apply", "-parallelism=0"}, `invalid value "0" for flag -parallelism: want a whole number ≥ 1`},
		{"apply negative parallelism", []string{"apply", "-parallelism", "-3"}, `invalid value "-3" for flag -parallelism: want a whole number ≥ 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"-chdir=" + dir}, tc.args...), strings.NewReader(""), &stdout, &stderr, nil)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
			if !strings.Contains(stderr.String(), "Usage: lab "+tc.args[0]) {
				t.Errorf("stderr lacks the verb's usage:\n%s", stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("a usage error printed to stdout:\n%s", stdout.String())
			}
		})
	}
}

// TestArgumentsAccepted checks that the checks refuse nothing valid.
func TestArgumentsAccepted(t *testing.T) {
	tests := []struct {
		name       string
		args, rest []string
		want       arity
	}{
		{"none", nil, nil, noArgs},
		{"optional given", []string{"-format", "csv", "RUN"}, []string{"RUN"}, optionalArg("a run id")},
		{"optional left out", []string{"-format", "csv"}, nil, optionalArg("a run id")},
		{"two", []string{"-json", "a", "b"}, []string{"a", "b"}, arity{2, 2, "two run ids"}},
		{"a lone dash is an argument", []string{"-"}, []string{"-"}, optionalArg("a file")},
		{"dashes after --", []string{"--", "-a"}, []string{"-a"}, optionalArg("a file")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkArgs("verb", tc.args, tc.rest, tc.want); err != nil {
				t.Error(err)
			}
		})
	}
}
