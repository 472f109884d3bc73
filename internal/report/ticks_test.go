package report

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// TestNiceTicks: four to seven labelled ticks at round numbers, with the
// decimals the step needs.
func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi, upTo float64
		want         string
	}{
		{0, 270, 0, "0 50 100 150 200 250"},
		{0, 27, 0, "0 5 10 15 20 25"},
		{0, 2.7, 0, "0 0.5 1.0 1.5 2.0 2.5"},
		{0, 110, 100, "0 20 40 60 80 100"},
		{0.8, 1, 0, "0.80 0.85 0.90 0.95 1.00"},
		{-3, 7, 0, "-2 0 2 4 6"},
		{0, 13500, 0, "0 2500 5000 7500 10000 12500"},
	} {
		var labels []string
		for _, tk := range (niceTicks{upTo: tc.upTo}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("[%v, %v]: %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

var tickLabelRE = regexp.MustCompile(`>(-?[0-9][0-9.]*)</text>`)

// TestPlotGoldens: the latency example's compare plot marks its
// throughput axis at six round numbers (it showed "0.00" and "250.00"
// only) and its CPU panel labels each bar with its value (it had none);
// both are compared with golden SVGs (-update writes them).
func TestPlotGoldens(t *testing.T) {
	info, recs := loadExample(t, "latency")
	groups := results.Group(recs)
	_, cpu, err := plots(info, groups, figureWidth(groups))
	if err != nil {
		t.Fatal(err)
	}
	ds := verdicts.Compare(groups, groups, verdicts.CompareOptions{Threshold: 0.02})
	for _, tc := range []struct {
		name   string
		render func(io.Writer) error
		want   []string
	}{
		{"latency-compare", func(w io.Writer) error {
			return RenderCompareFormat(w, "svg", "base", "test", ds, CompareOptions{Threshold: 0.02})
		}, []string{"0", "50", "100", "150", "200", "250"}},
		{"latency-cpu", func(w io.Writer) error {
			c := vgsvg.New(figureWidth(groups)*(1-leftShare), figureTopH)
			drawPanel(draw.New(c), cpu.Plot)
			return writeCanvas(w, "svg", c)
		}, []string{"56", "42", "47", "0", "20", "100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.render(&buf); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, m := range tickLabelRE.FindAllStringSubmatch(buf.String(), -1) {
				seen[m[1]] = true
			}
			for _, w := range tc.want {
				if !seen[w] {
					t.Errorf("no text %q in the plot (numbers seen: %v)", w, seen)
				}
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".svg.golden"), buf.Bytes())
		})
	}
}
