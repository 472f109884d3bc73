package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesValidate runs `lab validate` and `lab plan` on every
// directory under examples/, as a user would before applying it (on a copy,
// so the plan's state lock never lands in the source tree). Examples that
// need variables ship a test.labvars file (HCL, -var-file) with harmless
// values; nothing connects to a hypervisor before apply.
func TestExamplesValidate(t *testing.T) {
	dirs, err := filepath.Glob("../../examples/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			work := t.TempDir()
			if err := os.CopyFS(work, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(work, ".lab"))
			os.RemoveAll(filepath.Join(work, "results"))
			for _, verb := range []string{"validate", "plan"} {
				args := []string{"-chdir=" + work, verb}
				if _, err := os.Stat(filepath.Join(work, "test.labvars")); err == nil {
					args = append(args, "-var-file="+filepath.Join(work, "test.labvars"))
				}
				var stdout, stderr bytes.Buffer
				if code := Main(args, strings.NewReader(""), &stdout, &stderr, nil); code != 0 {
					t.Errorf("%s %s: exit %d\n%s%s", verb, dir, code, stdout.String(), stderr.String())
				}
				if verb == "plan" && !strings.Contains(stdout.String(), "Plan: ") {
					t.Errorf("plan %s printed no summary:\n%s", dir, stdout.String())
				}
			}
		})
	}
}

// TestCLIErrors checks what a user sees for common mistakes: one
// diagnostic with file and line, exit status 1, never a panic.
func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lab.hcl", `lab "cli" {}
variable "mtu" {
  type    = number
  default = 1500
}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  guest { mtu = var.mtu }
  iperf3 { duration = "1s" }
}
`)
	write("bad.vars", "mtu = \"big\"\n")
	tests := []struct {
		name     string
		args     []string
		env      []string
		wantCode int
		wantOut  string // substring of stdout+stderr
	}{
		{"valid", []string{"validate"}, nil, 0, "Success!"},
		{"-var sets a variable", []string{"validate", "-var", "mtu=9000"}, nil, 0, "Success!"},
		{"-var out of range", []string{"validate", "-var", "mtu=10"}, nil, 1, "mtu"},
		{"-var-file with wrong type", []string{"validate", "-var-file", filepath.Join(dir, "bad.vars")}, nil, 1, "bad.vars"},
		{"LAB_VAR_ from the environment", []string{"plan"}, []string{"LAB_VAR_mtu=9000"}, 0, "Plan: 3 to add"},
		{"undeclared variable", []string{"validate", "-var", "nope=1"}, nil, 1, "nope"},
		{"unknown verb", []string{"frobnicate"}, nil, 1, "unknown verb"},
		{"report before any run", []string{"report"}, nil, 1, "no results"},
		{"state list on a new lab", []string{"state", "list"}, nil, 0, "no objects"},
		{"version", []string{"version"}, nil, 0, "lab "},
		{"help", []string{"-h"}, nil, 0, "Usage"},
		{"apply without answer", []string{"apply"}, nil, 1, "-auto-approve"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"-chdir=" + dir}, tc.args...), strings.NewReader(""), &stdout, &stderr, tc.env)
			out := stdout.String() + stderr.String()
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s", code, tc.wantCode, tc.wantOut, out)
			}
		})
	}
}

// TestDiagnosticNamesFileLineColumn checks the rendering a user sees.
func TestDiagnosticNamesFileLineColumn(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte("lab \"d\" {}\ntemplate \"t\" {}\npair \"p\" {\n  template = template.nope\n}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-chdir=" + dir, "validate"}, nil, &stdout, &stderr, nil); code != 1 {
		t.Fatalf("exit %d", code)
	}
	got := stderr.String()
	for _, want := range []string{"lab.hcl line 4", "template = template.nope", "undeclared template"} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostic lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "Error:") != 1 {
		t.Errorf("want exactly one error:\n%s", got)
	}
}
