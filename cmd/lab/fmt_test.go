package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
)

// runLab runs Main in-process with the given stdin.
func runLab(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, strings.NewReader(stdin), &out, &errOut, nil)
	return code, out.String(), errOut.String()
}

// TestFmtCheckExamples: every example is formatted (lab fmt -check).
func TestFmtCheckExamples(t *testing.T) {
	if code, out, errOut := runLab(t, "", "-chdir=../../examples", "fmt", "-check", "-recursive"); code != 0 {
		t.Errorf("fmt -check -recursive examples: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFmtCheckREADME: the hcl blocks of the README, docs/ and the
// examples' READMEs are formatted.
func TestFmtCheckREADME(t *testing.T) {
	pages := []string{"../../README.md"}
	for _, pattern := range []string{"../../docs/*.md", "../../examples/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllSubmatch(text, -1)
		if len(blocks) == 0 {
			continue
		}
		for i, b := range blocks {
			name := filepath.Join(dir, fmt.Sprintf("block%03d.hcl", i))
			if err := os.WriteFile(name, b[1], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code, out, errOut := runLab(t, "", "-chdir="+dir, "fmt", "-check", "-diff"); code != 0 {
			t.Errorf("%s: hcl blocks are not formatted (exit %d):\n%s%s", page, code, out, errOut)
		}
	}
}

// TestFmtMessy formats a messy file to its golden result; -check and -diff
// leave it alone and say what would change; a syntax error changes
// nothing and names the line.
func TestFmtMessy(t *testing.T) {
	messy, err := os.ReadFile("testdata/fmt/messy.hcl")
	if err != nil {
		t.Fatal(err)
	}
	setup := func(t *testing.T) (string, string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "lab.hcl")
		if err := os.WriteFile(path, messy, 0o640); err != nil {
			t.Fatal(err)
		}
		return dir, path
	}
	t.Run("check", func(t *testing.T) {
		dir, path := setup(t)
		code, out, _ := runLab(t, "", "-chdir="+dir, "fmt", "-check")
		if code != exitUnformatted || out != "lab.hcl\n" {
			t.Errorf("exit %d (want %d), output %q", code, exitUnformatted, out)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, messy) {
			t.Error("-check changed the file")
		}
	})
	t.Run("diff", func(t *testing.T) {
		dir, _ := setup(t)
		code, out, _ := runLab(t, "", "-chdir="+dir, "fmt", "-check", "-diff", "-list=false")
		if code != exitUnformatted {
			t.Errorf("exit %d", code)
		}
		golden.Check(t, "testdata/fmt/messy.diff", out)
	})
	t.Run("write", func(t *testing.T) {
		dir, path := setup(t)
		if code, out, errOut := runLab(t, "", "-chdir="+dir, "fmt"); code != 0 || out != "lab.hcl\n" {
			t.Errorf("exit %d, output %q %s", code, out, errOut)
		}
		got, _ := os.ReadFile(path)
		golden.Check(t, "testdata/fmt/messy.golden", got)
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want the file's own 0640", fi.Mode().Perm())
		}
		if code, out, _ := runLab(t, "", "-chdir="+dir, "fmt", "-check"); code != 0 || out != "" {
			t.Errorf("formatted file: -check exit %d, output %q", code, out)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		code, out, _ := runLab(t, string(messy), "fmt", "-")
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		golden.Check(t, "testdata/fmt/messy.golden", out)
	})
	t.Run("syntax error", func(t *testing.T) {
		dir := t.TempDir()
		bad := []byte("lab \"x\" {\n  a = \n}\n")
		path := filepath.Join(dir, "lab.hcl")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := runLab(t, "", "-chdir="+dir, "fmt")
		if code != 1 || !strings.Contains(errOut, "lab.hcl line 2") {
			t.Errorf("exit %d:\n%s", code, errOut)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
			t.Error("a file with a syntax error was changed")
		}
	})
}
