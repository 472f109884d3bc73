package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// TestCompareFormats: -format svg overlays base and test with one pair of
// bars and whiskers per cell and writes each cell's verdict above them;
// html holds that SVG and the table; table is RenderCompare's; an
// unknown format is an error naming the known ones. $LAB_PLOT_DIR gets
// a PNG of the overlay, to look at.
func TestCompareFormats(t *testing.T) {
	base, test := fakeGroups(), fakeGroups()
	test[0].ThroughputBps = results.Summarize([]float64{2.0e9, 2.05e9, 1.98e9})
	ds := verdicts.Compare(base, test, verdicts.CompareOptions{Threshold: 0.02})
	opt := CompareOptions{Threshold: 0.02}
	var svg, page, table, plain bytes.Buffer
	if err := RenderCompareFormat(&svg, "svg", "A", "B", ds, opt); err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if !strings.Contains(svg.String(), ">"+string(d.Change)+"<") {
			t.Errorf("svg lacks the verdict %q of %s", d.Change, d.CellKey)
		}
	}
	if !strings.Contains(svg.String(), "base A") || !strings.Contains(svg.String(), "test B") {
		t.Error("svg does not name base and test")
	}
	p, err := comparePanel("A", "B", ds)
	if err != nil {
		t.Fatal(err)
	}
	w := 0
	for _, it := range p.items {
		if wh, ok := it.(whiskers); ok && len(wh.lo) == len(ds) {
			w++
		}
	}
	if w != 2 {
		t.Errorf("%d whisker sets, want base and test", w)
	}
	if err := RenderCompareFormat(&page, "html", "A", "B", ds, opt); err != nil {
		t.Fatal(err)
	}
	if err := RenderCompareFormat(&table, "table", "A", "B", ds, opt); err != nil {
		t.Fatal(err)
	}
	if err := RenderCompare(&plain, "A", "B", ds, opt); err != nil {
		t.Fatal(err)
	}
	if table.String() != plain.String() || !strings.Contains(page.String(), "<svg") || !strings.Contains(page.String(), "Welch") {
		t.Error("table or html format differs from what it holds")
	}
	if err := RenderCompareFormat(&table, "pdf", "A", "B", ds, opt); err == nil || !strings.Contains(err.Error(), "table, svg, html") {
		t.Errorf("unknown format: %v", err)
	}
	if dir := os.Getenv("LAB_PLOT_DIR"); dir != "" {
		c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(compareWidth(len(ds)), 4.5*vg.Inch), vgimg.UseDPI(110))}
		p.draw(draw.New(c))
		f, _ := os.Create(filepath.Join(dir, "compare.png"))
		c.WriteTo(f)
		f.Close()
	}
}

// TestPlotTextStaysOnCanvas: every text element of the compare overlay
// (long run ids, a latency metric) and of a time series with long cell
// keys starts inside the canvas. The overlay's title once began at
// x = -46.8, so "latency p99: base …" read "99: base …" (issue 35).
func TestPlotTextStaysOnCanvas(t *testing.T) {
	base, test := fakeGroups(), fakeGroups()
	ds := verdicts.Compare(base, test, verdicts.CompareOptions{Threshold: 0.02, Metric: results.MetricLatencyP99})
	var svg bytes.Buffer
	if err := RenderCompareFormat(&svg, "svg", "20261201T113443Z-quickstart-base", "20261202T010039Z-quickstart-test", ds, CompareOptions{Threshold: 0.02}); err != nil {
		t.Fatal(err)
	}
	checkTextOnCanvas(t, "compare", svg.String())
	for _, e := range exampleRuns {
		info, recs := loadExample(t, e.name)
		for _, format := range []string{"svg", "timeseries"} {
			var out bytes.Buffer
			if err := Render(&out, format, info, results.Group(recs), Options{}); err != nil {
				continue // an example without a time series
			}
			checkTextOnCanvas(t, e.name+" "+format, out.String())
		}
	}
}

// checkTextOnCanvas fails for a <text> of svg whose x is negative (gonum
// writes a text's left edge as x, after centring).
func checkTextOnCanvas(t *testing.T, name, svg string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`<text x="(-[0-9.]+)"[^>]*>([^<]*)<`).FindAllStringSubmatch(svg, -1) {
		t.Errorf("%s: text %q starts at x = %s, left of the canvas", name, m[2], m[1])
	}
}

// TestCompareTableUnits: comparing a latency lab's runs, the table shows
// throughput in Mb/s (as the plot does), not "0.00 ± 0.00" Gb/s, and a
// latency metric with its ± CI (issue 35).
func TestCompareTableUnits(t *testing.T) {
	_, recs := loadExample(t, "latency")
	g := results.Group(recs)
	for _, tc := range []struct{ metric, want, not string }{
		{"", "base Mb/s", "0.00 ± 0.00"},
		{results.MetricLatencyMean, " ± ", ""},
	} {
		ds := verdicts.Compare(g, g, verdicts.CompareOptions{Threshold: 0.02, Metric: tc.metric})
		var out bytes.Buffer
		if err := RenderCompare(&out, "A", "B", ds, CompareOptions{Threshold: 0.02}); err != nil {
			t.Fatal(err)
		}
		rows := strings.SplitN(out.String(), "Welch", 2)[0]
		if !strings.Contains(rows, tc.want) || tc.not != "" && strings.Contains(rows, tc.not) {
			t.Errorf("-metric %q: want %q and not %q in\n%s", tc.metric, tc.want, tc.not, rows)
		}
	}
}
