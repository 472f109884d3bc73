package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanOrderSeed: `lab plan -order-seed N` shows the seed and gives the
// same order every time (text and -json); a seed that is not a whole
// number ≥ 1 is an error, and a saved plan refuses another seed.
func TestPlanOrderSeed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(onlyLab), 0o644); err != nil {
		t.Fatal(err)
	}
	lab := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(append([]string{"-chdir=" + dir}, args...), strings.NewReader(""), &stdout, &stderr, nil)
		return code, stdout.String() + stderr.String()
	}
	saved := filepath.Join(dir, "p.plan")
	if code, out := lab("plan", "-out", saved, "-order-seed", "5"); code != 0 {
		t.Fatalf("plan -out: exit %d\n%s", code, out)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"text", []string{"plan", "-order-seed", "5"}, 0, "drawn from seed 5; -order-seed 5 replays it"},
		{"json", []string{"plan", "-json", "-order-seed", "5"}, 0, `"order_seed": 5`},
		{"zero", []string{"plan", "-order-seed", "0"}, 1, `"0" is not a seed: a whole number ≥ 1`},
		{"not a number", []string{"plan", "-order-seed", "x"}, 1, `"x" is not a seed`},
		{"saved plan", []string{"apply", "-order-seed", "3", saved}, 1, "a saved plan carries its own run order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out := lab(tc.args...)
			if code != tc.wantCode || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s", code, tc.wantCode, tc.want, out)
			}
			if tc.name == "text" { // -json carries the time it was made
				if _, again := lab(tc.args...); again != out {
					t.Errorf("same seed, another plan:\n%s\n%s", out, again)
				}
			}
		})
	}
}
