package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/results"
)

// TestREADMEBundleTable keeps the table of pinned bundles (in
// docs/publishing.md, once the README's) true
// to testdata/bundles/: a row for every bundle and a bundle for every row,
// the row's "N cells" the number of cells lab reproduce judges (the
// distinct experiment, pair and cell of the bundle's records), its margin
// and shape margin those of bundle.json (no shape margin in the row: the
// bundle states none), its back end one bundle.json names and every
// `-var k=v` of its spec column a value of the bundle's published.labvars.
func TestREADMEBundleTable(t *testing.T) {
	readme, err := os.ReadFile(bundleTablePage)
	if err != nil {
		t.Fatal(err)
	}
	rows := bundleTableRows(t, string(readme))
	dirs, err := filepath.Glob("../../testdata/bundles/*")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range dirs {
		names = append(names, filepath.Base(d))
	}
	var rowNames []string
	for name := range rows {
		rowNames = append(rowNames, name)
	}
	slices.Sort(names)
	slices.Sort(rowNames)
	if !slices.Equal(names, rowNames) {
		t.Errorf("%s: bundle table rows %q, testdata/bundles/ holds %q", bundleTablePage, rowNames, names)
	}
	for _, name := range names {
		row, ok := rows[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			for _, problem := range bundleRowProblems(filepath.Join("../../testdata/bundles", name), row) {
				t.Error(problem)
			}
		})
	}
}

// bundleTablePage is the page that holds the table of pinned bundles.
const bundleTablePage = "../../docs/publishing.md"

// bundleTableRows returns the page's pinned-bundle table by bundle name:
// each row's columns (spec, back end, margin, what a reproduction checks).
func bundleTableRows(t *testing.T, readme string) map[string][]string {
	t.Helper()
	start := strings.Index(readme, "| `testdata/bundles/` |")
	if start < 0 {
		t.Fatal(bundleTablePage + " has no table of pinned bundles (header \"| `testdata/bundles/` |\")")
	}
	rows := map[string][]string{}
	lines := strings.Split(readme[start:], "\n")
	for _, line := range lines[2:] { // after the header and its rule
		if !strings.HasPrefix(line, "|") {
			break
		}
		cols := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cols) != 5 {
			t.Fatalf("bundle table row with %d columns, want 5: %s", len(cols), line)
		}
		rows[strings.Trim(strings.TrimSpace(cols[0]), "`")] = cols[1:]
	}
	return rows
}

var (
	rowCells       = regexp.MustCompile(`(\d+) cells`)
	rowMargin      = regexp.MustCompile(`^\s*(\d+) %`)
	rowShapeMargin = regexp.MustCompile(`shape (\d+) %`)
	rowVar         = regexp.MustCompile("-var ([a-z_]+)=([^ `]+)")
)

// bundleRowProblems compares one row (spec, back end, margin, checks)
// with the bundle in dir.
func bundleRowProblems(dir string, row []string) []string {
	info, err := bundle.ReadInfo(dir)
	if err != nil {
		return []string{err.Error()}
	}
	_, recs, err := (results.Store{Dir: filepath.Join(dir, bundle.RecordsDir)}).Load(info.RunID)
	if err != nil {
		return []string{err.Error()}
	}
	specCol, backEnd, margin, checks := row[0], row[1], row[2], row[3]
	var out []string
	if m := rowCells.FindStringSubmatch(checks); m == nil || m[1] != strconv.Itoa(len(results.Group(recs))) {
		out = append(out, fmt.Sprintf("row says %q, the bundle's records hold %d cells", checks, len(results.Group(recs))))
	}
	if m := rowMargin.FindStringSubmatch(margin); m == nil || m[1] != percent(info.Margin) {
		out = append(out, fmt.Sprintf("row's margin %q, bundle.json's %s %%", margin, percent(info.Margin)))
	}
	m := rowShapeMargin.FindStringSubmatch(margin)
	if (m == nil) != (info.ShapeMargin == 0) || (m != nil && m[1] != percent(info.ShapeMargin)) {
		out = append(out, fmt.Sprintf("row's margin %q, bundle.json's shape margin %s %%", margin, percent(info.ShapeMargin)))
	}
	if !slices.ContainsFunc(info.BackEnds, func(b string) bool { return strings.Contains(backEnd, b) }) {
		out = append(out, fmt.Sprintf("row's back end %q, bundle.json's %q", backEnd, info.BackEnds))
	}
	vars := publishedVars(dir, info)
	for _, v := range rowVar.FindAllStringSubmatch(specCol, -1) {
		if got, ok := vars[v[1]]; !ok || got != v[2] {
			out = append(out, fmt.Sprintf("row runs -var %s=%s, the bundle's %s says %s = %q", v[1], v[2], info.VarFile, v[1], got))
		}
	}
	return out
}

// percent is a margin as the table writes it: whole per cent.
func percent(f float64) string { return strconv.Itoa(int(math.Round(f * 100))) }

// publishedVars reads the bundle's variables file: name = value lines,
// string values unquoted.
func publishedVars(dir string, info bundle.Info) map[string]string {
	vars := map[string]string{}
	if info.VarFile == "" {
		return vars
	}
	data, err := os.ReadFile(filepath.Join(dir, bundle.SpecDir, info.VarFile))
	if err != nil {
		return vars
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
			vars[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return vars
}
