package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestCompareFormatCLI: compare -format svg overlays the two runs with the
// verdict of each cell, -format html is a page holding that plot and the
// table, and an unknown format is refused (issue 25 §1).
func TestCompareFormatCLI(t *testing.T) {
	dir := verdictDir(t)
	writeRun(t, dir, 1, results.StatusComplete,
		cellRuns{"1500", []float64{4, 4.1, 3.9}, 0}, cellRuns{"9000", []float64{10, 10.1, 9.9, 10}, 0})
	writeRun(t, dir, 2, results.StatusComplete,
		cellRuns{"1500", []float64{4, 4.1, 3.9}, 0}, cellRuns{"9000", []float64{8, 8.1, 7.9, 8}, 0})
	code, out, errOut := runMain(dir, "compare", "-format", "svg", "previous", "latest")
	if code != exitOK || !strings.HasPrefix(out, "<?xml") || !strings.Contains(out, ">regressed<") {
		t.Errorf("compare -format svg: exit %d\n%.300s%s", code, out, errOut)
	}
	code, out, errOut = runMain(dir, "compare", "-format", "html", "previous", "latest")
	if code != exitOK || !strings.Contains(out, "<!DOCTYPE html>") || !strings.Contains(out, "<svg") || !strings.Contains(out, "Welch") {
		t.Errorf("compare -format html: exit %d\n%.300s%s", code, out, errOut)
	}
	if code, _, errOut := runMain(dir, "compare", "-format", "pdf", "previous", "latest"); code != exitError || !strings.Contains(errOut, "table, svg, html") {
		t.Errorf("compare -format pdf: exit %d, %s", code, errOut)
	}
	// -o writes the page to a file, nothing to stdout, and says where
	// (issue 35: compare had no -o).
	page := filepath.Join(t.TempDir(), "cmp.html")
	code, out, errOut = runMain(dir, "compare", "-format", "html", "-o", page, "previous", "latest")
	b, err := os.ReadFile(page)
	if code != exitOK || out != "" || err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(errOut, "Wrote the comparison") {
		t.Errorf("compare -o: exit %d, stdout %.100q, file %.100q (%v), stderr %s", code, out, b, err, errOut)
	}
}
