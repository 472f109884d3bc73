package spec

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/golden"
)

// TestZeroDurationRefused loads, for every tool, a benchmark block whose
// duration is zero or negative — written, from the matrix, or in a
// background load — and wants one "Invalid duration" error on the
// duration's value (file, line and column), since no tool can measure
// zero seconds: iperf3 and netperf would run until stopped, sockperf
// refuses it at apply, iperf 2 sends nothing. The diagnostics as
// `lab validate` prints them are kept in testdata/golden/zero-duration.txt.
func TestZeroDurationRefused(t *testing.T) {
	const head = "lab \"d\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"
	tests := []struct {
		name, body string
		line, col  int // where the duration's value starts
	}{
		{"iperf3 zero", "iperf3 {\n  duration = \"0s\"\n}", 7, 14},
		{"iperf2 zero", "iperf2 {\n  duration = \"0s\"\n}", 7, 14},
		{"netperf zero", "netperf {\n  duration = \"0s\"\n}", 7, 14},
		{"sockperf zero", "sockperf {\n  duration = \"0s\"\n}", 7, 14},
		{"sockperf zero minutes", "sockperf {\n  duration = \"0m\"\n}", 7, 14},
		{"sockperf negative", "sockperf {\n  duration = \"-5s\"\n}", 7, 14},
		{"netperf zero from the matrix", "matrix = { d = [\"10s\", \"0s\"] }\nnetperf {\n  duration = matrix.d\n}", 8, 14},
		{"iperf2 zero in a background load", "background {\n  iperf2 { duration = \"0s\" }\n}\niperf3 {}", 7, 23},
	}
	var out bytes.Buffer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := strings.ReplaceAll(tt.name, " ", "-") + ".hcl"
			src := head + "experiment \"e\" {\n  pairs = [pair.p]\n" + tt.body + "\n}\n"
			l, diags := LoadFiles("", map[string][]byte{name: []byte(src)}, Options{})
			var errs hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("want one error, got %d:\n%s", len(errs), writeDiags(t, l, diags))
			}
			d := errs[0]
			if d.Summary != "Invalid duration" {
				t.Errorf("summary %q, want \"Invalid duration\"", d.Summary)
			}
			if d.Subject == nil || d.Subject.Filename != name || d.Subject.Start.Line != tt.line || d.Subject.Start.Column != tt.col {
				t.Errorf("subject %v, want %s:%d,%d", d.Subject, name, tt.line, tt.col)
			}
			fmt.Fprintf(&out, "### %s\n%s", tt.name, writeDiags(t, l, diags))
		})
	}
	golden.Check(t, filepath.Join("testdata", "golden", "zero-duration.txt"), out.String())
}
