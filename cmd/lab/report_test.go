package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportOutputFile: -o writes the report to a file, its format from
// the extension unless -format says; standard output stays empty.
func TestReportOutputFile(t *testing.T) {
	dir := t.TempDir()
	writeOnlyRun(t, dir)
	tests := []struct {
		name   string
		args   []string
		file   string
		prefix []byte
	}{
		{"csv by extension", nil, "r.csv", []byte("experiment,pair,mtu,n,")},
		{"png by extension", nil, "r.png", []byte("\x89PNG\r\n\x1a\n")},
		{"svg by extension", nil, "r.svg", []byte("<?xml")},
		{"markdown from .md", nil, "r.md", []byte("")},
		{"-format wins", []string{"-format", "json"}, "r.txt", []byte("[")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			args := append(append([]string{"-chdir=" + dir, "report"}, tc.args...), "-o", path)
			code, out, errOut := runLab(t, "", args...)
			if code != 0 || out != "" || !strings.Contains(errOut, "Wrote the ") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(bytes.TrimSpace(got), tc.prefix) {
				t.Errorf("%s starts %q, want %q", tc.file, got[:min(len(got), 40)], tc.prefix)
			}
		})
	}
}

func TestReportPNGToTerminal(t *testing.T) {
	tests := []struct {
		format, out string
		tty, refuse bool
	}{
		{"png", "", true, true},
		{"png", "", false, false}, // redirected: the user asked for the bytes
		{"png", "x.png", true, false},
		{"svg", "", true, false},
		{"table", "", true, false},
	}
	for _, tc := range tests {
		if err := checkBinaryToTerminal(tc.format, tc.out, tc.tty); (err != nil) != tc.refuse {
			t.Errorf("%s to %q, terminal %t: %v", tc.format, tc.out, tc.tty, err)
		}
	}
}

func TestReportHelpListsFormats(t *testing.T) {
	code, _, errOut := runLab(t, "", "report", "-h")
	for _, f := range []string{"svg", "png", "markdown", "-o FILE"} {
		if code != 0 || !strings.Contains(errOut, f) {
			t.Errorf("report -h (exit %d) lacks %q:\n%s", code, f, errOut)
		}
	}
}
