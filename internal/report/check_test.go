package report

import (
	"bytes"
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// fakeOutcomes evaluates expectations with every verdict against the
// fixed groups: pass and fail (deb), inconclusive (one run), incomplete
// (a failed run), and a ratio.
func fakeOutcomes() []verdicts.Outcome {
	exps := []verdicts.Expectation{
		{Name: "fbsd at 2.4 Gb/s", Experiment: "lro-mtu", Where: map[string]string{"pair": "fbsd", "mtu": "1500"},
			Throughput: &verdicts.Target{Value: 2.4, Tolerance: 0.15}},
		{Name: "fbsd jumbo", Experiment: "lro-mtu", Where: map[string]string{"pair": "fbsd", "mtu": "9000"},
			Throughput: &verdicts.Target{Value: 8.6, Tolerance: 0.15}},
		{Name: "deb at 15 Gb/s", Experiment: "lro-mtu", Where: map[string]string{"pair": "deb", "mtu": "1500"},
			Throughput: &verdicts.Target{Value: 15, Tolerance: 0.15}},
		{Name: "no retransmits", Experiment: "lro-mtu", Where: map[string]string{"mtu": "1500"},
			Retransmits: &verdicts.Target{Value: 0}},
	}
	return verdicts.Evaluate(fakeGroups(), exps)
}

func TestRenderChecksGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := RenderChecks(&buf, info.ID, fakeOutcomes(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "check.golden"), buf.Bytes())
}

func TestJUnitGolden(t *testing.T) {
	for _, tt := range []struct {
		name   string
		strict bool
	}{{"junit", false}, {"junit-strict", true}} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, info.ID, fakeOutcomes(), tt.strict); err != nil {
				t.Fatal(err)
			}
			var parsed junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &parsed); err != nil {
				t.Fatalf("not XML: %v", err)
			}
			if parsed.Tests != 5 || parsed.Failures == 0 {
				t.Errorf("tests %d failures %d", parsed.Tests, parsed.Failures)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), buf.Bytes())
		})
	}
}

func TestRenderCompareGolden(t *testing.T) {
	base := fakeGroups()
	test := fakeGroups()
	test[0].ThroughputBps = results.Summarize([]float64{2.0e9, 2.05e9, 1.98e9})
	var buf bytes.Buffer
	ds := verdicts.Compare(base, test, verdicts.CompareOptions{Threshold: 0.02})
	if err := RenderCompare(&buf, "A", "B", ds, CompareOptions{Threshold: 0.02}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "compare.golden"), buf.Bytes())
}

// TestRenderCompareBH: with -adjust bh the p column and the footer name
// Benjamini–Hochberg and its false discovery rate; the default stays Holm.
func TestRenderCompareBH(t *testing.T) {
	var buf bytes.Buffer
	ds := verdicts.Compare(fakeGroups(), fakeGroups(), verdicts.CompareOptions{Adjust: verdicts.AdjustBH})
	if err := RenderCompare(&buf, "A", "B", ds, CompareOptions{Adjust: verdicts.AdjustBH}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"p (BH)", "Benjamini–Hochberg", "false discovery rate"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}
