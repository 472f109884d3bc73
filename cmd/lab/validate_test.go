package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
)

// TestExamplesValidateOffline: like `terraform validate`, every example
// validates with no variable values and no credentials in the environment
// (required variables are unknown values; providers are configured offline).
func TestExamplesValidateOffline(t *testing.T) {
	for _, k := range []string{"GOVC_URL", "GOVC_USERNAME", "GOVC_PASSWORD", "GOVC_INSECURE"} {
		t.Setenv(k, "")
	}
	dirs, err := filepath.Glob("../../examples/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"-chdir=" + dir, "validate"}, strings.NewReader(""), &stdout, &stderr, nil); code != 0 {
				t.Errorf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
		})
	}
}

// TestValidateOfflineStillChecks: what is known is still checked — a bad
// literal in a provider block, a bad value given with -var — and plan,
// which needs the values, still asks for them.
func TestValidateOfflineStillChecks(t *testing.T) {
	t.Setenv("GOVC_URL", "")
	tests := []struct {
		name     string
		src      string
		args     []string
		wantCode int
		want     string
	}{
		{"unknown provider value", `variable "host" { type = string }
provider "bhyve" "b" { host = var.host }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}`, []string{"validate"}, 0, "taken as unknown (host)"},
		{"bad literal beside an unknown value", `variable "host" { type = string }
provider "hosts" "h" {
  server {
    address = var.host
    iface   = "eth0"
  }
  client {
    address = "10.0.0.2"
    iface   = "not an interface"
  }
}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}`, []string{"validate"}, 1, "Invalid interface"},
		{"vsphere without URL or credentials", `provider "vsphere" "v" { datacenter = "DC0" }
template "t" { source = "x" }
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}`, []string{"validate"}, 0, "Success!"},
		{"vsphere without URL: plan needs it", `provider "vsphere" "v" { datacenter = "DC0" }
template "t" { source = "x" }
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}`, []string{"plan"}, 1, "Missing vCenter URL"},
		{"bad -var still checked", `variable "d" { type = string }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = var.d }
}`, []string{"validate", "-var", "d=soon"}, 1, "Invalid duration"},
		{"plan still needs required variables", `variable "d" { type = string }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = var.d }
}`, []string{"plan"}, 1, "No value for required variable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte("lab \"off\" {}\n"+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"-chdir=" + dir}, tc.args...), strings.NewReader(""), &stdout, &stderr, nil)
			out := stdout.String() + stderr.String()
			if code != tc.wantCode || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d (want %d), output lacks %q:\n%s", code, tc.wantCode, tc.want, out)
			}
		})
	}
}

// TestValidateJSON checks `lab validate -json` against golden files: the
// outcome, the counts, and each diagnostic with its range and snippet
// (filenames relative to the lab directory).
func TestValidateJSON(t *testing.T) {
	tests := []struct {
		name, src string
		wantCode  int
	}{
		{"valid", `variable "d" { type = string }
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = var.d }
}`, 0},
		{"errors", `template "t" { os = "plan9" }
pair "p" {
  template = template.nope
}
`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte("lab \"json\" {}\n"+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := Main([]string{"-chdir=" + dir, "validate", "-json"}, strings.NewReader(""), &stdout, &stderr, nil)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("-json wrote to stderr:\n%s", stderr.String())
			}
			golden.Check(t, filepath.Join("testdata", "validate-json", tc.name+".json"), stdout.String())
		})
	}
}

// defaultRe matches a variable's default (one line, or a bracketed value
// over several lines).
var defaultRe = regexp.MustCompile(`(?m)^(\s*)default\s*=\s*(\[[^\]]*\]|\{[^}]*\}|.*)$`)

// TestValidateWithoutDefaults takes every example with its variables'
// defaults removed: every variable is then unknown, everywhere the
// example reads it, and validate must still pass without a panic — the
// widest test of the spec's unknown-value paths.
func TestValidateWithoutDefaults(t *testing.T) {
	t.Setenv("GOVC_URL", "")
	dirs, _ := filepath.Glob("../../examples/*/lab.hcl")
	for _, path := range dirs {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			stripped := defaultRe.ReplaceAll(src, []byte("${1}# default removed"))
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), stripped, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			if code := Main([]string{"-chdir=" + dir, "validate"}, strings.NewReader(""), &stdout, &stderr, nil); code != 0 {
				t.Errorf("exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
		})
	}
}
