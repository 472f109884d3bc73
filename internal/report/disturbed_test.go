package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
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

// Every report format shows the runner's CPU pressure of the cells whose
// runs recorded it (results.Environment), beside the disturbed note; a
// cell of records written before shows none.
func TestReportsShowRunnerPressure(t *testing.T) {
	var recs []results.Record
	for i, p := range []float64{92, 94, 96} {
		recs = append(recs, results.Record{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Cell: []results.CellValue{{Name: "mtu", Value: "9000"}},
			Repeat: i + 1, Metrics: bench.Sample{ThroughputBps: 5e9}, Disturbed: "CPU pressure",
			Environment: &results.Environment{CPUPressure: p, CPUPressureKnown: true, Load1Start: 15, Load1End: 20}})
	}
	recs = append(recs, results.Record{Experiment: "e", Pair: "p", CellKey: "mtu=1500", Cell: []results.CellValue{{Name: "mtu", Value: "1500"}},
		Repeat: 1, Metrics: bench.Sample{ThroughputBps: 5e9}, Environment: &results.Environment{Load1Start: 1}})
	groups := results.Group(recs)
	want := map[string][]string{
		"table":    {"runner CPU pressure %", " 94 │ 3 disturbed"},
		"markdown": {"runner CPU pressure %", "| 94 | 3 disturbed |"},
		"csv":      {"runner_cpu_pressure_pct_mean", ",94,"},
		"json":     {`"runner_cpu_pressure_pct"`},
		"html":     {"runner CPU pressure"},
	}
	for format, ss := range want {
		var buf bytes.Buffer
		if err := Render(&buf, format, info, groups, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if !strings.Contains(buf.String(), s) {
				t.Errorf("%s report lacks %q:\n%s", format, s, buf.String())
			}
		}
	}
}

// compare's table says "not comparable" with the runners' figures where
// their states differed, instead of a change.
func TestCompareTableNotComparable(t *testing.T) {
	var recs [2][]results.Record
	for side, p := range []float64{94, 20} {
		for i := range 3 {
			recs[side] = append(recs[side], results.Record{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: i + 1,
				Metrics:     bench.Sample{ThroughputBps: float64(1+4*side) * (1e9 + float64(i)*1e7)},
				Environment: &results.Environment{CPUPressure: p, CPUPressureKnown: true, Load1Start: 2, Load1End: 2}})
		}
	}
	ds := verdicts.Compare(results.Group(recs[0]), results.Group(recs[1]), verdicts.CompareOptions{})
	var buf bytes.Buffer
	if err := RenderCompare(&buf, "a", "b", ds, CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "not comparable") || !strings.Contains(out, "not comparable: CPU pressure 94% vs 20%") || strings.Contains(out, "│ improved") ||
		!strings.Contains(out, "so the cell is not tested") {
		t.Errorf("compare table:\n%s", out)
	}
}
