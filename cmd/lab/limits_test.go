package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateHostile runs the hostile inputs through the CLI:
// each ends promptly with exit 1 and an error naming file:line:column (or
// the file, for a file refused whole), never a crash or a hang.
func TestValidateHostile(t *testing.T) {
	const exp = "template \"t\" {}\npair \"p\" { template = template.t }\n"
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		want  []string
	}{
		{"hundred thousand brackets", map[string]string{"lab.hcl": `lab "h" { description = ` + strings.Repeat("[", 100000) + " }\n"},
			nil, []string{"Nesting too deep", "lab.hcl line 1"}},
		{"var-file /dev/zero", map[string]string{"lab.hcl": `lab "h" {}` + "\n" + exp + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n"},
			[]string{"-var-file=/dev/zero"}, []string{"Cannot read variable file", "/dev/zero is a device, not a regular file."}},
		{"ten million cells", map[string]string{"lab.hcl": `lab "h" {}` + "\n" + exp + `experiment "e" {
  pairs  = [pair.p]
  matrix = { a = range(1000), b = range(1000), c = range(10) }
  guest { mtu = 1000 + matrix.a + matrix.b + matrix.c }
  iperf3 {}
}
`}, nil, []string{"Too many cells", "lab.hcl line 6", "10000000 cells"}},
		{"local cpus -5", map[string]string{"lab.hcl": `lab "h" {}` + "\nprovider \"local\" \"default\" {\n  cpus = -5\n}\n" + exp +
			"experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n"}, nil, []string{"Invalid cpus", "lab.hcl line 3"}},
		{"host sysctl on local", map[string]string{"lab.hcl": `lab "h" {}` + "\n" + exp + `experiment "e" {
  pairs = [pair.p]
  guest { sysctl = { "kernel.printk_ratelimit" = 10 } }
  iperf3 {}
}
`}, nil, []string{"Sysctl not namespaced", "lab.hcl line 6"}},
		{"no experiment", map[string]string{"lab.hcl": `lab "h" {}` + "\n" + exp}, nil, []string{"No experiment", "lab.hcl line 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, src := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"-chdir=" + dir, "validate"}, tc.args...), strings.NewReader(""), &stdout, &stderr, nil)
			out := stdout.String() + stderr.String()
			if code != 1 || strings.Count(out, "Error:") != 1 {
				t.Errorf("exit %d, want 1 and one error:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestValidateFIFO: a FIFO named main.hcl is refused at once.
func TestValidateFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "main.hcl"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan string)
	go func() {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"-chdir=" + dir, "validate"}, strings.NewReader(""), &stdout, &stderr, nil)
		if code != 1 {
			t.Errorf("exit %d", code)
		}
		done <- stderr.String()
	}()
	select {
	case out := <-done:
		if !strings.Contains(out, "is a FIFO (named pipe), not a regular file.") {
			t.Errorf("output:\n%s", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("validate hung on a FIFO")
	}
}

// TestPlanSensitive: a sensitive -var is not saved in a plan file nor
// printed by plan -json.
func TestPlanSensitive(t *testing.T) {
	dir := t.TempDir()
	src := `lab "s" {}
variable "token" {
  sensitive = true
  default   = "none"
}
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Main([]string{"-chdir=" + dir, "plan", "-json", "-var", "token=s3cr3t-value"}, strings.NewReader(""), &stdout, &stderr, nil)
	if out := stdout.String() + stderr.String(); code != 0 || strings.Contains(out, "s3cr3t") || !strings.Contains(out, "token=(sensitive value)") {
		t.Errorf("plan -json: exit %d:\n%s", code, out)
	}
	stdout.Reset()
	stderr.Reset()
	planFile := filepath.Join(t.TempDir(), "p.json")
	code = Main([]string{"-chdir=" + dir, "plan", "-out", planFile, "-var", "token=s3cr3t-value"}, strings.NewReader(""), &stdout, &stderr, nil)
	if _, err := os.Stat(planFile); code != 1 || err == nil || !strings.Contains(stderr.String(), "LAB_VAR_token") {
		t.Errorf("plan -out: exit %d, file %v:\n%s%s", code, err, stdout.String(), stderr.String())
	}
}
