package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
)

// TestSummary runs summary over real `go test -json` streams (go 1.26's
// test2json, of a throwaway package with a fast, a slow, a failing, a
// skipped and a hanging test; fail.jsonl also holds a package that does not
// compile) and checks the log it writes against testdata/*.golden.
func TestSummary(t *testing.T) {
	for _, c := range []struct {
		name       string
		n          int
		progress   float64
		wantFailed bool
		want       []string // lines the log must hold, whatever the golden says
		notWant    []string
	}{
		{"pass", 2, 0.4, false, []string{"0.3  PASS  ex TestSlow/a", "ok  \tex\t", "took 0.5s: PASS ex TestSlow\n"},
			[]string{"fast passing log line", "TestSlow/b", "FAILED", "took 0.0s"}},
		{"fail", 20, 10, true, []string{"the assertion that failed", "context before the failure", "needs root",
			"cannot use \"x\"", "FAILED: ex TestFails/sub", "FAILED: ex/bad\n"},
			[]string{"fast passing log line", "=== RUN   TestSlow"}},
		{"timeout", 20, 10, true, []string{"hanging now", "still running when its package failed", "panic: test timed out"},
			[]string{"fast passing log line"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", c.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			failed, err := summary(bytes.NewReader(in), &out, c.n, c.progress)
			if err != nil || failed != c.wantFailed {
				t.Errorf("failed = %v, %v; want %v", failed, err, c.wantFailed)
			}
			for _, s := range c.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("log lacks %q", s)
				}
			}
			for _, s := range c.notWant {
				if strings.Contains(out.String(), s) {
					t.Errorf("log holds %q", s)
				}
			}
			golden.Check(t, filepath.Join("testdata", c.name+".golden"), out.String())
		})
	}
}

// TestSummaryPassesOtherLines: a line that is not test2json's (go's own
// stderr, merged by 2>&1) is written as it came.
func TestSummaryPassesOtherLines(t *testing.T) {
	var out bytes.Buffer
	in := "go: downloading example.com/m v1.0.0\n{not json\n"
	if failed, err := summary(strings.NewReader(in), &out, 20, 10); failed || err != nil || out.String() != in {
		t.Errorf("got %q, %v, %v; want %q", out.String(), failed, err, in)
	}
}
