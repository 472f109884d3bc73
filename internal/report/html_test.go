package report

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	headlesspkg "github.com/lab-bench/lab/internal/headless"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// chromium and headless are internal/headless's Chromium and Run: a
// binary (or a skip outside CI), and a headless load of a local file with
// no network, returning the DOM and the console messages.
func chromium(t *testing.T) string { return headlesspkg.Chromium(t) }

func headless(t *testing.T, bin, page string, extra ...string) (dom string, console []string) {
	return headlesspkg.Run(t, bin, page, extra...)
}

// htmlFixture renders the metrics fixture with verdicts that pass, fail
// and are inconclusive.
func htmlFixture(t *testing.T) (page []byte, groups []results.CellGroup, outs []verdicts.Outcome) {
	t.Helper()
	groups = results.Group(fakeMetricRecords())
	outs = verdicts.Evaluate(groups, []verdicts.Expectation{
		{Name: "round trips under 1 ms", Experiment: "rr", Metrics: []verdicts.MetricTarget{{Metric: results.MetricLatencyMean, Value: 1000, IsMax: true}}},
		{Name: "no loss <script>alert(1)</script>", Experiment: "udp", Metrics: []verdicts.MetricTarget{{Metric: results.MetricLoss, Value: 0.1, IsMax: true}}},
		{Name: "8 Gb/s routed", Experiment: "fw", Throughput: &verdicts.Target{Value: 8, Tolerance: 0.1}},
	})
	var buf bytes.Buffer
	if err := Render(&buf, "html", info, groups, Options{Outcomes: outs}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), groups, outs
}

// TestHTMLSelfContained: nothing in the page is fetched from elsewhere,
// and text from the spec is escaped.
func TestHTMLSelfContained(t *testing.T) {
	page, _, _ := htmlFixture(t)
	ext := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)|url\(\s*["']?(https?:|//)|@import|<link\b`)
	if m := ext.Find(page); m != nil {
		t.Errorf("external reference %q", m)
	}
	if bytes.Contains(page, []byte("<script>alert(1)")) {
		t.Error("an expectation name reached the page unescaped")
	}
	for _, want := range []string{"sha256:5d41402abc4b2a76b9719d911017c592", "AMD EPYC 7B13", "<svg", "repeat 2", "lock digest"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr class="cell"[^>]*>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<td[^>]*?data-key="([^"]+)"(?:[^>]*?data-value="([^"]*)")?[^>]*>(.*?)</td>`)
	verdRE = regexp.MustCompile(`<tr data-verdict="([a-z]+)">`)
)

// TestHTMLInChromium loads the report in headless Chromium: the page's
// script runs without a console message, the numbers in the rendered
// table are the JSON report's (exact values and their rounding), every
// verdict is on the page, and a screenshot is saved in the test's temp
// dir.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	page, groups, outs := htmlFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := headless(t, bin, path, "--dump-dom")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Fatalf("the page's script did not finish:\n%.500s", dom)
	}

	var jsonReport bytes.Buffer
	if err := Render(&jsonReport, "json", info, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	var want []results.CellGroup
	if err := json.Unmarshal(jsonReport.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	rows := rowRE.FindAllStringSubmatch(dom, -1)
	if len(rows) != len(want) {
		t.Fatalf("%d rows on the page, %d cells in the JSON report", len(rows), len(want))
	}
	checked := 0
	for i, row := range rows {
		g := want[i]
		for _, c := range cellRE.FindAllStringSubmatch(row[1], -1) {
			key, value, text := c[1], c[2], html.UnescapeString(c[3])
			if key == "n" {
				if text != strconv.Itoa(g.N) {
					t.Errorf("row %d: n %s, JSON %d", i, text, g.N)
				}
				continue
			}
			m, ok := results.MetricByKey(key)
			if !ok {
				t.Errorf("row %d: unknown metric column %s", i, key)
				continue
			}
			s := g.Metric(key)
			if s.N == 0 {
				if value != "" || text != "-" {
					t.Errorf("row %d %s: %q (%q) for a metric the JSON report does not have", i, key, text, value)
				}
				continue
			}
			// The column's unit is the table's (columnScale: µs for this jitter).
			shown := columnText(m, s, columnScale(m, groups))
			v, err := strconv.ParseFloat(value, 64)
			if err != nil || v != s.Mean || text != shown {
				t.Errorf("row %d %s: page %q (value %q), JSON mean %v (%q)", i, key, text, value, s.Mean, shown)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d numbers compared", checked)
	}
	var verdicts []string
	for _, m := range verdRE.FindAllStringSubmatch(dom, -1) {
		verdicts = append(verdicts, m[1])
	}
	var wantVerdicts []string
	for _, o := range outs {
		for _, c := range o.Checks {
			wantVerdicts = append(wantVerdicts, string(c.Verdict))
		}
	}
	if strings.Join(verdicts, ",") != strings.Join(wantVerdicts, ",") || !strings.Contains(strings.Join(verdicts, ","), "fail") {
		t.Errorf("verdicts on the page %v, checked %v", verdicts, wantVerdicts)
	}

	shot := filepath.Join(dir, "report.png")
	headless(t, bin, path, "--screenshot="+shot, "--window-size=1400,2400", "--hide-scrollbars")
	b, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 20000 {
		t.Fatalf("screenshot %s: %v, %d bytes", shot, err, len(b))
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(b))
}

// TestHeadlessSeesConsoleErrors: the console check above is not vacuous —
// a page whose script throws is reported.
func TestHeadlessSeesConsoleErrors(t *testing.T) {
	bin := chromium(t)
	path := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(path, []byte(`<!DOCTYPE html><html><body><script>null.x;</script></body></html>`), 0o644)
	_, console := headless(t, bin, path, "--dump-dom")
	if len(console) == 0 || !strings.Contains(strings.Join(console, "\n"), "Uncaught TypeError") {
		t.Errorf("a throwing script went unnoticed: %v", console)
	}
}
