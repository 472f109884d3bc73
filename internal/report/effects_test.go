package report

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// TestHTMLEffects renders the HTML report of the firewall-jumbo bundle's
// recorded runs (mtu × firewall, 2 × 3): its factor-effects section plots
// one bar with a CI whisker per shown estimate (mtu's contrast, the three
// firewall levels, the six interaction pairs), and an experiment whose
// matrix varies nothing gets no section.
func TestHTMLEffects(t *testing.T) {
	b, err := os.ReadFile("../verdicts/testdata/effects/records.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	recs = slices.DeleteFunc(recs, func(r results.Record) bool { return r.Experiment != "firewall" })
	fe := verdicts.Effects(recs, results.MetricThroughput)[0]
	p, err := effectsPlot("firewall/fw", fe.Metrics[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(p.cats) != 10 || p.cats[0] != "mtu\n9000 − 1500" || p.cats[1] != "firewall\noff" {
		t.Errorf("categories %q", p.cats)
	}
	var bars, whisk int
	for _, it := range p.items {
		switch it := it.(type) {
		case *plotter.BarChart:
			bars += len(it.Values)
		case whiskers:
			for i := range it.lo {
				if it.lo[i] < it.hi[i] {
					whisk++
				}
			}
		}
	}
	if bars != 10 || whisk != 10 {
		t.Errorf("%d bars, %d whiskers: want 10, 10", bars, whisk)
	}
	var out bytes.Buffer
	info := results.RunInfo{ID: "20261201T221402Z", Lab: "firewall-jumbo"}
	if err := Render(&out, "html", info, results.Group(recs), Options{Records: recs}); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	for _, want := range []string{`<h2 id="effects">Factor effects</h2>`, "<h3>firewall / fw</h3>", "28 runs in 6 cells", "2 disturbed"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	if i := strings.Index(html, `<div class="plot effects"><svg`); i < 0 {
		t.Error("no effects SVG in the HTML report")
	}
}
