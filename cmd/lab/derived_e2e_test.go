package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// derivedLab is secretLab on loopback addresses with expr, computed from
// its variables, as both machines' private key path (the key fails to
// load at apply, and the error quotes the path), and two more variables.
func derivedLab(expr string) string {
	src := fmt.Sprintf(secretLab, "127.0.0.1", "127.0.0.2")
	return keyPathRe.ReplaceAllLiteralString(src, expr) + `
variable "obj" {
  sensitive = true
  default   = { secret = "/nonexistent/obj-Secret-Leaf" }
}
variable "open" { default = "/nonexistent/open-value" }
`
}

var keyPathRe = regexp.MustCompile(`"\$\{var\.key_dir\}/\w+_key"`)

// derivedKey is var.key_dir's value; derivedCases derive key paths from it.
const derivedKey = "/nonexistent/S3cr3t-Pa55/zz"

// derivedCases are private key paths computed from the variables, and the
// path each yields: hidden everywhere when it derives from a sensitive
// value, shown when it does not.
var derivedCases = []struct {
	expr, value string
	hidden      bool
}{
	{"upper(var.key_dir)", "/NONEXISTENT/S3CR3T-PA55/ZZ", true},
	{"substr(var.key_dir, 0, 24)", "/nonexistent/S3cr3t-Pa55", true},
	{`"${var.key_dir}-x"`, derivedKey + "-x", true},
	{"lower(upper(var.key_dir))", "/nonexistent/s3cr3t-pa55/zz", true},
	{"var.obj.secret", "/nonexistent/obj-Secret-Leaf", true},
	{`format("%s", var.key_dir)`, derivedKey, true},
	{`format("%.20s!", var.key_dir)`, "/nonexistent/S3cr3t-!", true},
	{`strlen(var.key_dir) > 5 ? "/nonexistent/long-key" : "/nonexistent/short"`, "/nonexistent/long-key", true},
	{"upper(var.open)", "/NONEXISTENT/OPEN-VALUE", false},
}

// TestDerivedSensitiveNeverWritten: a key path computed from a sensitive
// variable by a function, a template, an attribute or a condition is in
// none of the text and -json output of validate, plan and apply (whose
// key error quotes it), the LAB_LOG=trace file, the saved plan, the
// results and the state; the errors say "(sensitive value)". The same
// path computed from an open variable is shown. The source line of a
// diagnostic shows the expression as written, which is no leak: the
// spec's own file is not checked.
func TestDerivedSensitiveNeverWritten(t *testing.T) {
	for _, tc := range derivedCases {
		t.Run(tc.expr, func(t *testing.T) {
			dir := t.TempDir()
			src := derivedLab(tc.expr)
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, "lab.log")
			var all strings.Builder
			for _, args := range [][]string{
				{"validate"},
				{"validate", "-json"},
				{"plan", "-out=" + filepath.Join(dir, "saved.plan")},
				{"plan", "-json"},
				{"apply", "-auto-approve"},
				{"apply", "-auto-approve", "-json"},
			} {
				cmd := labCmd(dir, args...)
				cmd.Env = append(os.Environ(), "LAB_VAR_key_dir="+derivedKey, "LAB_LOG=trace", "LAB_LOG_PATH="+log)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				out := stdout.String() + stderr.String()
				all.WriteString(out)
				if args[0] == "apply" && err == nil {
					t.Errorf("lab %s: want the key error, got success:\n%s", strings.Join(args, " "), out)
				}
				if tc.hidden && strings.Contains(out, tc.value) {
					t.Errorf("lab %s printed the derived value %q:\n%s", strings.Join(args, " "), tc.value, out)
				}
			}
			keyErr := "private key: open " + tc.value
			if tc.hidden {
				keyErr = "private key: open (sensitive value)"
			}
			if !strings.Contains(all.String(), keyErr) {
				t.Errorf("no %q in the output:\n%s", keyErr, all.String())
			}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), tc.value) != !tc.hidden {
				t.Errorf("LAB_LOG file: holds %q is %t, want %t:\n%s", tc.value, !tc.hidden, strings.Contains(string(b), tc.value), b)
			}
			if tc.hidden {
				noTextIn(t, dir, tc.value, "lab.hcl")
			}
		})
	}
}

// derivedOSLab uses EXPR as a template's os, which the loader refuses
// with an error that quotes the value.
const derivedOSLab = `
lab "e2e-derived-os" {}
variable "key" {
  type      = string
  sensitive = true
}
variable "open" { default = "open-value" }
template "host" { os = EXPR }
pair "p" { template = template.host }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}
`

// TestDerivedSensitiveNotInDiagnostics: validate and plan, as text and
// -json, refuse an os computed from a sensitive variable saying "(sensitive
// value)", never the value; computed from an open variable, the value is
// quoted.
func TestDerivedSensitiveNotInDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		expr, value string
		hidden      bool
	}{
		{"upper(var.key)", "/NONEXISTENT/S3CR3T-PA55/ZZ", true},
		{"substr(var.key, 0, 24)", "/nonexistent/S3cr3t-Pa55", true},
		{`strlen(var.key) > 5 ? "long-os-name" : "short-os"`, "long-os-name", true},
		{"upper(var.open)", "OPEN-VALUE", false},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(strings.ReplaceAll(derivedOSLab, "EXPR", tc.expr)), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"validate"}, {"validate", "-json"}, {"plan"}, {"plan", "-json"}} {
				code, stdout, stderr := runMain(dir, append(args, "-var", "key="+derivedKey)...)
				out := withoutSourceLines(stdout + stderr)
				if code == 0 || !strings.Contains(out, "Invalid operating system") {
					t.Errorf("lab %s: exit %d, want the os error:\n%s", strings.Join(args, " "), code, out)
				}
				if strings.Contains(out, tc.value) == tc.hidden || strings.Contains(out, "(sensitive value)") != tc.hidden {
					t.Errorf("lab %s: want the value %q hidden: %t:\n%s", strings.Join(args, " "), tc.value, tc.hidden, out)
				}
			}
		})
	}
}

// withoutSourceLines is text diagnostics without their source lines
// ("  15: …"), and -json ones without their snippets' code: the spec as
// written, where a conditional's literals are.
func withoutSourceLines(out string) string {
	return sourceLineRe.ReplaceAllString(out, "")
}

var sourceLineRe = regexp.MustCompile(`(?m)^\s*\d+: .*$|"code":\s*"(\\.|[^"\\])*"`)

// noTextIn fails the test for every file under dir but skip that holds text.
func noTextIn(t *testing.T, dir, text, skip string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == skip {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(text)) {
			t.Errorf("%s holds the derived value %q:\n%s", path, text, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
