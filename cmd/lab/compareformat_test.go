package main

import (
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
}
