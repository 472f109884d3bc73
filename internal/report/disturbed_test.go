package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// Every report format names a cell's disturbed runs (issue 23 §1: the
// noise guard marked them and no output said so).
func TestReportsNameDisturbedRuns(t *testing.T) {
	groups := fakeGroups()[:1]
	groups[0].Disturbed = 2
	want := map[string]string{"table": "2 disturbed", "markdown": "2 disturbed", "csv": ",0,2\n", "json": `"disturbed": 2`}
	for format, s := range want {
		var buf bytes.Buffer
		if err := Render(&buf, format, info, groups, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), s) {
			t.Errorf("%s report lacks %q:\n%s", format, s, buf.String())
		}
	}
}

// A metric whose spread overflowed says so in the note column.
func TestReportNamesOverflow(t *testing.T) {
	groups := fakeGroups()[:1]
	groups[0].Metrics = map[string]results.Summary{results.MetricThroughput: {N: 3, Mean: 1.3e308, Overflow: true}}
	var buf bytes.Buffer
	if err := Render(&buf, "table", info, groups, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "throughput_bps overflows float64") {
		t.Errorf("table lacks the overflow note:\n%s", buf.String())
	}
}
