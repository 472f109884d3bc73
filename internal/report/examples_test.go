package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// exampleRuns are recorded runs of three examples, as `lab apply` wrote
// them: quickstart's throughput runs (testdata/records/quickstart-8cells, the
// pinned bundle's records before issue 32), and
// latency-rr's and udp-loss's runs on namespaces joined by a veth (lab
// apply -var repeat=4 -var duration=3s on a 2-vCPU VM shared with other
// work, 2026-12-02).
var exampleRuns = []struct{ name, dir, id string }{
	{"throughput", "../../testdata/records/quickstart-8cells", "20261201T113443Z"},
	{"latency", "testdata/records/latency-rr", "20261202T010039Z"},
	{"udp", "testdata/records/udp-loss", "20261202T010112Z"},
}

// loadExample loads one recorded example run.
func loadExample(t *testing.T, name string) (results.RunInfo, []results.Record) {
	t.Helper()
	for _, e := range exampleRuns {
		if e.name == name {
			info, recs, err := results.Store{Dir: e.dir}.Load(e.id)
			if err != nil {
				t.Fatal(err)
			}
			return info, recs
		}
	}
	t.Fatalf("no example %s", name)
	return results.RunInfo{}, nil
}

// plotTitles are the titles of the extra panels of a run's figure.
func plotTitles(t *testing.T, groups []results.CellGroup) []string {
	t.Helper()
	ps, err := metricPanels(groups, panelW)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range ps {
		titles = append(titles, strings.SplitN(p.Title.Text, "\n", 2)[0])
		// An axis labelled "/s" says nothing: "transactions/s" (issue 35).
		if strings.HasPrefix(p.Y.Label.Text, "/") {
			t.Errorf("panel %q: y axis %q", titles[len(titles)-1], p.Y.Label.Text)
		}
	}
	return titles
}

// TestExamplePlots: each recorded example gets a panel for each metric its
// benchmark records and none for one it does not: latency percentiles and
// the histogram's CDF for latency-rr, loss, jitter and packets/s for
// udp-loss, retransmits for quickstart's TCP runs; cycles per bit where
// the CPU clock was recorded (not in quickstart's records), and the
// sender's throughput, a hidden column, which each records. The
// figures are written to $LAB_PLOT_DIR when it is set, to look at.
func TestExamplePlots(t *testing.T) {
	want := map[string][]string{
		"throughput": {"retransmits", "sender throughput"},
		"latency":    {"round-trip latency (mean, 95% CI; dots: the repeats)", "round-trip latency distribution (repeats pooled)", "transactions/s", "sender throughput", "server cycles/bit", "client cycles/bit"},
		"udp":        {"loss", "jitter", "packets/s (incl. lost)", "sender throughput"},
	}
	for _, e := range exampleRuns {
		t.Run(e.name, func(t *testing.T) {
			info, recs := loadExample(t, e.name)
			groups := results.Group(recs)
			var got []string
			for _, title := range plotTitles(t, groups) {
				got = append(got, strings.TrimSuffix(title, " (mean, 95% CI; dots: the repeats)"))
			}
			w := want[e.name]
			if e.name == "latency" {
				w[0] = "round-trip latency"
			}
			if strings.Join(got, "|") != strings.Join(w, "|") {
				t.Errorf("panels %q, want %q", got, w)
			}
			for _, format := range []string{"svg", "png"} {
				var buf bytes.Buffer
				if err := Render(&buf, format, info, groups, Options{Records: recs}); err != nil {
					t.Fatal(err)
				}
				if dir := os.Getenv("LAB_PLOT_DIR"); dir != "" {
					os.WriteFile(filepath.Join(dir, e.name+"."+format), buf.Bytes(), 0o644)
				}
			}
		})
	}
}

// TestLatencyCDF: the CDF of a latency cell ends at 1 at its longest
// round trip's bin and rises at every bin's upper edge, a cell's own CDF
// (its drill-down) has a line per repeat, and the percentile
// bars' legend marks the binned quantiles as upper bounds.
func TestLatencyCDF(t *testing.T) {
	_, recs := loadExample(t, "latency")
	groups := results.Group(recs)
	p, err := cdfPanel(groups)
	if err != nil || p == nil {
		t.Fatalf("no CDF: %v", err)
	}
	lines := 0
	for _, it := range p.items {
		l, ok := it.(*plotter.Line)
		if !ok {
			continue
		}
		lines++
		last := l.XYs[len(l.XYs)-1]
		if last.Y != 1 || l.XYs[0].X != 100 {
			t.Errorf("CDF from %v to %v", l.XYs[0], last)
		}
		for i := 1; i < len(l.XYs); i++ {
			if l.XYs[i].X <= l.XYs[i-1].X || l.XYs[i].Y < l.XYs[i-1].Y {
				t.Errorf("CDF not increasing at %d: %v", i, l.XYs[i-1:i+1])
			}
		}
	}
	if lines != len(groups) {
		t.Errorf("%d CDF lines for %d cells", lines, len(groups))
	}
	cell, err := cellCDFPanel(groups[0])
	if err != nil || cell == nil {
		t.Fatalf("no CDF of a cell: %v", err)
	}
	perRepeat := 0
	for _, it := range cell.items {
		if _, ok := it.(*plotter.Line); ok {
			perRepeat++
		}
	}
	if perRepeat != groups[0].N {
		t.Errorf("%d lines in a cell's CDF for %d repeats", perRepeat, groups[0].N)
	}
	lat, err := latencyPanel(groups, panelW)
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := writePanelSVG(&svg, lat); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "p99 ≤ (bin edge)") || !strings.Contains(svg.String(), "µs") {
		t.Error("the binned quantiles are not labelled as upper bounds")
	}
}

// TestColumnUnits: a latency run's rates, all below 1 Gb/s, print in Mb/s
// ("18.3 ± 2.3", not "0.02 ± 0.00") in the table and on the plot's axis.
func TestColumnUnits(t *testing.T) {
	info, recs := loadExample(t, "latency")
	groups := results.Group(recs)
	var table bytes.Buffer
	if err := Render(&table, "markdown", info, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := table.String(); !strings.Contains(s, "throughput Mb/s") || strings.Contains(s, "0.02 ±") {
		t.Errorf("throughput column not in Mb/s:\n%s", s)
	}
	tput, _, err := plots(info, groups, 12*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if tput.Y.Label.Text != "Mb/s" {
		t.Errorf("throughput axis in %q", tput.Y.Label.Text)
	}
	m, _ := results.MetricByKey(results.MetricJitter)
	for top, want := range map[float64]string{0.004: "µs", 2.5: "ms"} {
		if got := scaleFor(m, top).unit; got != want {
			t.Errorf("jitter of at most %v ms shown in %s, want %s", top, got, want)
		}
	}
}

// TestExampleScreenshots opens the HTML report of each recorded example
// in headless Chromium with every <details> section open: the page's
// script finishes (data-ready="1") without a console message, it shows a
// figure for every panel metricPanels draws, and its screenshot is not
// blank (over 5 % of its pixels differ from the background). With
// -update the screenshots are written to docs/screenshots, where the
// README links them, and the layout of the page's top (its headings,
// tables and figures, to 10 px) to testdata/screenshots; without, the
// layout and the checked-in screenshot's size must be the page's now: a
// report whose layout changed has stale screenshots (the ones before
// issue 35 showed clipped labels and no tool-CPU columns). Pixels are
// not compared: fonts differ from machine to machine.
func TestExampleScreenshots(t *testing.T) {
	bin := chromium(t)
	for _, e := range exampleRuns {
		t.Run(e.name, func(t *testing.T) {
			open, groups := openExamplePage(t, e.name)
			dir := t.TempDir()
			path := filepath.Join(dir, e.name+".html")
			if err := os.WriteFile(path, []byte(open), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, console := headless(t, bin, path, "--dump-dom")
			if len(console) > 0 {
				t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
			}
			if !strings.Contains(dom, `data-ready="1"`) {
				t.Fatalf("the page's script did not finish:\n%.500s", dom)
			}
			panels, err := metricPanels(groups, figureWidth(groups)/2)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(dom, `<div class="plot metric"><svg`); got != len(panels) {
				t.Errorf("%d metric figures on the page, %d panels", got, len(panels))
			}
			if got := strings.Count(dom, `<details open=""`); got != len(groups) {
				t.Errorf("%d open sections for %d cells", got, len(groups))
			}
			shot := filepath.Join(dir, e.name+".png")
			headless(t, bin, path, "--screenshot="+shot, "--window-size="+shotSize, "--hide-scrollbars")
			b, err := os.ReadFile(shot)
			if err != nil {
				t.Fatal(err)
			}
			if f := inked(t, b); f < 0.05 {
				t.Errorf("screenshot %s nearly blank: %.1f %% of its pixels drawn", shot, f*100)
			}
			checked := filepath.Join("..", "..", "docs", "screenshots", e.name+"-report.png")
			if golden.Update() {
				if err := os.WriteFile(checked, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkScreenshot(t, bin, open, checked, b)
		})
	}
}

// inked is the fraction of a PNG's pixels that differ from its top-left
// pixel (the page's background).
func inked(t *testing.T, b []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	r := img.Bounds()
	bg := img.At(r.Min.X, r.Min.Y)
	var n, drawn int
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			n++
			if img.At(x, y) != bg {
				drawn++
			}
		}
	}
	return float64(drawn) / float64(n)
}

// TestUDPTimeSeriesIsReceived: a UDP cell's time series plots what the
// receiver got (iperf3's server intervals, below the 4 Gb/s the client
// sent at a 2 % drop) and says so; the summary table's receiver
// throughput is their mean, give or take the interval edges.
func TestUDPTimeSeriesIsReceived(t *testing.T) {
	_, recs := loadExample(t, "udp")
	for _, g := range results.Group(recs) {
		if g.CellKey != "rate=4G,drop=2%" {
			continue
		}
		p, err := timeSeriesPlot(g)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Title.Text, "rate received (iperf3 server)") {
			t.Errorf("title %q does not name the side", p.Title.Text)
		}
		ivs := receiverIntervals(g.Repeats[0])
		if len(ivs) == 0 || ivs[0].Bps == g.Repeats[0].Metrics.Intervals[0].Bps {
			t.Fatalf("receiver intervals %v, the client's %v", ivs, g.Repeats[0].Metrics.Intervals)
		}
		sum := 0.0
		for _, iv := range ivs {
			sum += iv.Bps
		}
		if m, got := g.Repeats[0].Metrics.ThroughputBps, sum/float64(len(ivs)); math.Abs(got-m) > 0.05*m {
			t.Errorf("mean received interval %.4g b/s, the run's throughput %.4g", got, m)
		}
		return
	}
	t.Fatal("no cell rate=4G,drop=2%")
}

// TestRecordedButHiddenPlotted: a background {} load's own throughput and
// the benchmark tool's own CPU, when a cell recorded them, get panels of
// their own (they were recorded and never plotted, issue 35). No recorded
// run holds them (the bundles' iperf3 reported no per-process CPU), so
// the fixture's cells are given them.
func TestRecordedButHiddenPlotted(t *testing.T) {
	groups := results.Group(fakeMetricRecords())
	for i := range groups {
		if groups[i].Metrics == nil {
			groups[i].Metrics = map[string]results.Summary{}
		}
		for key, mean := range map[string]float64{results.MetricBackground: 2e9, results.MetricServerToolCPU: 30, results.MetricClientToolCPU: 40} {
			groups[i].Metrics[key] = results.Summary{N: 2, Mean: mean, Known: true, CI95Low: mean * 0.8, CI95High: mean * 1.2}
		}
	}
	titles := strings.Join(plotTitles(t, groups), "|")
	for _, w := range []string{"background load's throughput", "server tool CPU", "client tool CPU"} {
		if !strings.Contains(titles, w+" (mean") {
			t.Errorf("no %q panel in %q", w, titles)
		}
	}
}

// openExamplePage renders the recorded example run name as the HTML
// report, every cell's drill-down open, as the page tests look at it; and
// the cells it shows.
func openExamplePage(t *testing.T, name string) (string, []results.CellGroup) {
	t.Helper()
	info, recs := loadExample(t, name)
	groups := results.Group(recs)
	var page bytes.Buffer
	if err := Render(&page, "html", info, groups, Options{Records: recs, ChecksNote: "expectations not checked in this test"}); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(page.String(), `<details class="drill"`, `<details open class="drill"`), groups
}
