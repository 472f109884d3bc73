package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const onlyLab = `lab "only" {}
template "t" {}
pair "a" { template = template.t }
pair "b" { template = template.t }
experiment "e" {
  pairs  = [pair.a, pair.b]
  matrix = { mtu = [1500, 9000], gro = [false, true] }
  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }
  iperf3 { duration = "1s" }
}
`

// TestPlanOnly runs `lab plan -only` as a user would: the plan shows the
// selection and holds only its runs; a key or value the lab does not
// have, or a malformed -only, is an error naming what there is.
func TestPlanOnly(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(onlyLab), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
	}{
		{"one pair and mtu", []string{"-only", "pair=a,mtu=9000"}, 0,
			[]string{"Selection: -only mtu=9000,pair=a: 2 of 8 runs.", "e/a  mtu=9000,gro=false", "e/a  mtu=9000,gro=true", "Plan: 3 to add"}},
		{"either", []string{"-only", "pair=a,mtu=9000", "-only", "gro=true"}, 0,
			[]string{"-only mtu=9000,pair=a or gro=true: 5 of 8 runs.", "Plan: 6 to add"}},
		{"experiment", []string{"-only", "experiment=e"}, 0, []string{"8 of 8 runs."}},
		{"unknown key", []string{"-only", "speed=1"}, 1, []string{`no matrix key "speed" (keys: experiment, gro, mtu, pair)`}},
		{"unknown value", []string{"-only", "mtu=1234"}, 1, []string{`mtu has no value "1234" (values: 1500, 9000)`}},
		{"unknown pair", []string{"-only", "pair=c"}, 1, []string{`pair has no value "c" (values: a, b)`}},
		{"not key=value", []string{"-only", "mtu"}, 1, []string{`"mtu" is not key=value`}},
		{"a key twice", []string{"-only", "mtu=1500,mtu=9000"}, 1, []string{"mtu is given twice"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"-chdir=" + dir, "plan"}, tc.args...), strings.NewReader(""), &stdout, &stderr, nil)
			out := stdout.String() + stderr.String()
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tc.wantCode, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestPlanDetailedExitcode: 0 when apply would do nothing, 2 when it would
// make machines or run benchmarks, 1 on an error.
func TestPlanDetailedExitcode(t *testing.T) {
	tests := []struct {
		name, src string
		want      int
	}{
		{"runs and machines", onlyLab, 2},
		{"error", "lab \"bad\" {}\npair \"p\" { template = template.none }\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runLab(t, "", "-chdir="+dir, "plan", "-detailed-exitcode")
			if code != tc.want {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.want, out, errOut)
			}
		})
	}
}
