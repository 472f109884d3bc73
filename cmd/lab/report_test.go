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
		{"html from .htm", nil, "r.htm", []byte("<!DOCTYPE html>")},
		{"html from .HTML", nil, "r.HTML", []byte("<!DOCTYPE html>")},
		{"csv-runs to .csv", []string{"-format", "csv-runs"}, "r.csv", []byte("run_id,experiment,")},
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
		{"timeseries-png", "", true, true},
		{"timeseries-png", "", false, false},
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

// TestReportOutputFormatRefused: an extension lab does not know, or one
// that -format disagrees with, is refused with the path and the formats,
// and nothing is written (-o x.htm once wrote a text table).
func TestReportOutputFormatRefused(t *testing.T) {
	dir := t.TempDir()
	writeOnlyRun(t, dir)
	tests := []struct {
		name string
		args []string
		file string
		want []string
	}{
		{"unknown extension", nil, "r.pdf", []string{"r.pdf", ".pdf", "-format", "html"}},
		{"csv into .html", []string{"-format", "csv"}, "r.html", []string{"r.html", "csv", "html"}},
		{"png into .svg", []string{"-format", "png"}, "r.svg", []string{"r.svg", "png", "timeseries"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			args := append(append([]string{"-chdir=" + dir, "report"}, tc.args...), "-o", path)
			code, _, errOut := runLab(t, "", args...)
			if code != 1 {
				t.Errorf("exit %d, want 1: %s", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("error lacks %q: %s", w, errOut)
				}
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s was written", tc.file)
			}
		})
	}
}

// TestReportRunAliases: report takes latest and previous as show, check
// and compare do (it said "no run latest").
func TestReportRunAliases(t *testing.T) {
	dir := t.TempDir()
	run := writeOnlyRun(t, dir)
	code, out, errOut := runLab(t, "", "-chdir="+dir, "report", "-format", "csv", "latest")
	if code != 0 || !strings.Contains(out, "experiment,pair,mtu") {
		t.Errorf("report latest: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut = runLab(t, "", "-chdir="+dir, "report", "previous")
	if code != 1 || !strings.Contains(errOut, `"previous"`) || !strings.Contains(errOut, "holds 1 run(s)") || strings.Contains(errOut, "no run previous") {
		t.Errorf("report previous with one run (%s): exit %d\n%s", run.ID(), code, errOut)
	}
}

// TestReportSeveralRuns: `lab report -format html A B` writes one page
// overlaying two recorded runs (latency-rr's and udp-loss's, copied into
// a results directory) with each run's own report; -o names both runs;
// several runs in another format are refused, naming it.
func TestReportSeveralRuns(t *testing.T) {
	dir := t.TempDir()
	runs := map[string]string{
		"20261202T010039Z": "../../internal/report/testdata/records/latency-rr/20261202T010039Z",
		"20261202T010112Z": "../../internal/report/testdata/records/udp-loss/20261202T010112Z",
	}
	for id, src := range runs {
		if err := os.CopyFS(filepath.Join(dir, "results", id), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runLab(t, "", "-chdir="+dir, "report", "-format", "html", "20261202T010039Z", "20261202T010112Z")
	if code != 0 || !strings.Contains(out, "2 runs overlaid") || strings.Count(out, `<details class="run"`) != 2 ||
		!strings.Contains(out, "not in 20261202T010112Z") || !strings.Contains(out, "not in 20261202T010039Z") {
		t.Errorf("html of two runs: exit %d, stderr %s\n%.600s", code, errOut, out)
	}
	path := filepath.Join(dir, "runs.html")
	code, _, errOut = runLab(t, "", "-chdir="+dir, "report", "-o", path, "previous", "latest")
	if code != 0 || !strings.Contains(errOut, "of run 20261202T010039Z, run 20261202T010112Z to ") {
		t.Errorf("-o runs.html previous latest: exit %d: %s", code, errOut)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Contains(b, []byte("2 runs overlaid")) {
		t.Errorf("runs.html: %v", err)
	}
	for _, format := range []string{"csv", "table"} {
		code, out, errOut = runLab(t, "", "-chdir="+dir, "report", "-format", format, "latest", "previous")
		if code != 1 || out != "" || !strings.Contains(errOut, "-format "+format) || !strings.Contains(errOut, "only -format html overlays runs") ||
			!strings.Contains(errOut, "lab compare A B") {
			t.Errorf("-format %s with two runs: exit %d, stdout %q, stderr %s", format, code, out, errOut)
		}
	}
}
