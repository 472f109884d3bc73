package report

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/lab-bench/lab/internal/results"
)

// overlayRuns are n runs of fakeGroups' cells, the throughput of each run
// shifted a little; the runs named in lacking miss the cell deb
// mtu=1500,streams=1.
func overlayRuns(ids []string, lacking map[string]bool) []RunReport {
	var runs []RunReport
	for i, id := range ids {
		var groups []results.CellGroup
		for _, g := range fakeGroups() {
			if lacking[id] && g.Pair == "deb" && g.CellKey == "mtu=1500,streams=1" {
				continue
			}
			if g.ThroughputBps.N > 0 {
				g.ThroughputBps.Mean *= 1 + 0.1*float64(i)
			}
			groups = append(groups, g)
		}
		in := info
		in.ID = id
		runs = append(runs, RunReport{Info: in, Groups: groups})
	}
	return runs
}

// TestRenderRunsHTML: the several-run page overlays every cell of any run
// per metric — a table column and a bar colour per run, "not in RUN" for
// a cell a run lacks, in the table and the plot — names each run in the
// legend and holds each run's own report, collapsed. $LAB_PLOT_DIR gets
// the pages, to look at.
func TestRenderRunsHTML(t *testing.T) {
	tests := []struct {
		name    string
		ids     []string
		lacking map[string]bool
	}{
		{"two runs", []string{"20261201T100000Z", "20261201T110000Z"}, nil},
		{"two runs, a cell missing from one", []string{"20261201T100000Z", "20261201T110000Z"}, map[string]bool{"20261201T110000Z": true}},
		{"three runs, a cell missing from one", []string{"A1", "B2", "C3"}, map[string]bool{"B2": true}},
	}
	cells := len(fakeGroups())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := overlayRuns(tc.ids, tc.lacking)
			var buf bytes.Buffer
			if err := RenderRunsHTML(&buf, runs); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			if dir := os.Getenv("LAB_PLOT_DIR"); dir != "" {
				os.WriteFile(filepath.Join(dir, "runs-"+strings.ReplaceAll(tc.name, " ", "-")+".html"), buf.Bytes(), 0o644)
			}
			table := section(t, page, `<table class="overlay" data-key="throughput_bps">`, "</table>")
			if got := strings.Count(table, "<tr><td>"); got != cells {
				t.Errorf("throughput overlay has %d rows, want every cell of any run (%d)", got, cells)
			}
			for _, id := range tc.ids {
				if !strings.Contains(table, "<th>"+id+"</th>") {
					t.Errorf("overlay table lacks the column of run %s", id)
				}
				if !strings.Contains(page, `<li data-run="`+id+`">`) {
					t.Errorf("legend lacks run %s", id)
				}
				if !strings.Contains(page, `<details class="run" id="run-`+id+`">`) {
					t.Errorf("no section of run %s", id)
				}
			}
			for _, id := range tc.ids {
				missing := `<td class="num missing">not in ` + id + `</td>`
				if got := strings.Count(table, missing); got != map[bool]int{true: 1}[tc.lacking[id]] {
					t.Errorf("%d cells marked not in %s (lacking %t)", got, id, tc.lacking[id])
				}
			}
			metrics := len(results.Measured(fakeGroups()))
			if got := strings.Count(page, `<div class="plot overlay"`); got != metrics {
				t.Errorf("%d overlay plots, want one per measured metric (%d)", got, metrics)
			}
			plot := section(t, page, `<div class="plot overlay" data-key="throughput_bps">`, "</div>")
			for _, id := range tc.ids {
				if !strings.Contains(plot, ">"+id+"<") {
					t.Errorf("throughput plot's legend lacks %s", id)
				}
				if tc.lacking[id] && (!strings.Contains(plot, ">not in<") || !strings.Contains(plot, ">"+id+"<")) {
					t.Errorf("throughput plot does not mark the cell missing from %s", id)
				}
			}
			if got, want := strings.Count(plot, ">not in<"), len(tc.lacking); got != want {
				t.Errorf("throughput plot marks %d cells missing, want %d", got, want)
			}
			if got := len(regexp.MustCompile(`<iframe title="report of run [^"]+" srcdoc="&lt;!DOCTYPE html&gt;`).FindAllString(page, -1)); got != len(tc.ids) {
				t.Errorf("%d embedded run reports, want %d", got, len(tc.ids))
			}
			if strings.Contains(page, "<details class=\"run\" open") {
				t.Error("a run's own report is open; want collapsed")
			}
		})
	}
	if err := RenderRunsHTML(&bytes.Buffer{}, overlayRuns([]string{"A"}, nil)); err == nil {
		t.Error("one run: no error")
	}
}

// section is the text of page from the first start to the end after it.
func section(t *testing.T, page, start, end string) string {
	t.Helper()
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("page lacks %s", start)
	}
	j := strings.Index(page[i:], end)
	if j < 0 {
		t.Fatalf("%s is not closed by %s", start, end)
	}
	return page[i : i+j]
}

// TestRunsHTMLInChromium: the several-run page fetches nothing from
// elsewhere and loads in headless Chromium without a console message —
// the embedded reports' scripts (which throw when their table and data
// disagree) included.
func TestRunsHTMLInChromium(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderRunsHTML(&buf, overlayRuns([]string{"A1", "B2"}, map[string]bool{"B2": true})); err != nil {
		t.Fatal(err)
	}
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)|url\(\s*["']?(https?:|//)|@import|<link\b`)
	if m := ext.Find(buf.Bytes()); m != nil {
		t.Errorf("external reference %q", m)
	}
	bin := chromium(t)
	path := filepath.Join(t.TempDir(), "runs.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := headless(t, bin, path, "--dump-dom")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, `data-ready="1"`) || strings.Count(dom, "<iframe") != 2 {
		t.Errorf("page not loaded, or not two embedded reports:\n%.500s", dom)
	}
}

// TestRunsPageOverlaysCDFs: two runs of the latency example (its records
// under two run ids) get, per cell, one round-trip CDF with a line per
// run in the run's colour (issue 35).
func TestRunsPageOverlaysCDFs(t *testing.T) {
	info, recs := loadExample(t, "latency")
	a := results.Group(recs)
	b := results.Group(recs)
	infoB := info
	infoB.ID = info.ID + "-b"
	runs := []RunReport{{Info: info, Groups: a}, {Info: infoB, Groups: b}}
	keys, byRun := overlayCells(runs)
	ps, err := overlayCDFPanels(keys, byRun, []string{info.ID, infoB.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(a) {
		t.Fatalf("%d CDF overlays for %d cells", len(ps), len(a))
	}
	for _, p := range ps {
		var colors []color.Color
		for _, it := range p.items {
			if l, ok := it.(*plotter.Line); ok {
				colors = append(colors, l.Color)
			}
		}
		if len(colors) != 2 || colors[0] != palette[0] || colors[1] != palette[1] {
			t.Errorf("%q: lines in %v, want one per run in its colour", p.Title.Text, colors)
		}
	}
	var page bytes.Buffer
	if err := RenderRunsHTML(&page, runs); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(page.String(), `<div class="plot overlay-cdf"><svg`); got != len(a) {
		t.Errorf("%d CDF figures on the page for %d cells", got, len(a))
	}
	for _, svg := range inlineSVGRE.FindAllString(strings.SplitN(page.String(), `id="each-run"`, 2)[0], -1) {
		for _, p := range textProblems(t, svg) {
			t.Error(p)
		}
	}
}
