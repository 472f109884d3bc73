package report

import (
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// htmlEffects is one experiment and pair's section of the HTML report's
// factor effects: what `lab effects -metric throughput_bps` prints, as a
// bar chart with 95 % CI whiskers.
type htmlEffects struct {
	Title string
	Note  string
	Plot  template.HTML
}

// effectsSections fits the throughput effects of every experiment and
// pair whose matrix varies a factor (verdicts.Effects) and plots them.
func effectsSections(records []results.Record, groups []results.CellGroup) ([]htmlEffects, error) {
	if records == nil {
		for _, g := range groups {
			records = append(records, g.Repeats...)
		}
	}
	var out []htmlEffects
	for _, fe := range verdicts.Effects(records, results.MetricThroughput) {
		if len(fe.Factors) == 0 || len(fe.Metrics) == 0 {
			continue
		}
		me := fe.Metrics[0]
		p, err := effectsPlot(fe.Experiment+"/"+fe.Pair, me)
		if err != nil {
			return nil, err
		}
		svg, err := inlineSVG(func(w io.Writer) error { return writeEffectsSVG(w, p, len(p.cats)) })
		if err != nil {
			return nil, err
		}
		tm, _ := results.MetricByKey(results.MetricThroughput)
		us := scaleFor(tm, me.ResidualSD)
		note := fmt.Sprintf("%d runs in %d cells; residual sd %s %s on %d df", fe.Runs, fe.Cells,
			number(me.ResidualSD*us.factor, 3), us.unit, me.DF)
		if fe.Failed+fe.Disturbed > 0 {
			note += fmt.Sprintf("; left out: %d failed, %d disturbed", fe.Failed, fe.Disturbed)
		}
		out = append(out, htmlEffects{Title: fe.Experiment + " / " + fe.Pair, Note: note, Plot: svg})
	}
	return out, nil
}

// effectsPanel is the effects bar chart and its category labels.
type effectsPanel struct {
	*panel
	cats []string
}

// effectsPlot draws one bar per shown estimate (verdicts.Term.Shown): a
// two-level term's contrast, else each level's deviation from the mean,
// in Gb/s with 95 % CI whiskers; one that is not estimable has no bar.
func effectsPlot(title string, me verdicts.MetricEffects) (effectsPanel, error) {
	var cats []string
	var vals plotter.Values
	var lo, hi []float64
	top := 0.0
	for _, t := range me.Terms {
		for _, e := range t.Shown() {
			top = math.Max(top, math.Max(math.Abs(e.Value), math.Max(math.Abs(e.CI95Low), math.Abs(e.CI95High))))
		}
	}
	tm, _ := results.MetricByKey(results.MetricThroughput)
	us := scaleFor(tm, top) // Mb/s when every effect is below 1 Gb/s
	for _, t := range me.Terms {
		for _, e := range t.Shown() {
			label := t.TermName() + "\n" + strings.ReplaceAll(e.Label(), ") × (", ")\n× (")
			v, l, h := e.Value*us.factor, math.NaN(), math.NaN()
			if !e.Estimable {
				label += "\n(not estimable)"
			} else if e.Known {
				l, h = e.CI95Low*us.factor, e.CI95High*us.factor
			}
			cats, vals, lo, hi = append(cats, label), append(vals, v), append(lo, l), append(hi, h)
		}
	}
	p := newPanel()
	p.Title.Text = title + ": effects on throughput (95 % CI)\n" +
		"two levels: second − first; interaction: difference of differences;\nmore levels: deviation from the mean"
	p.Y.Label.Text = us.unit
	p.NominalX(cats...)
	bw := vg.Points(math.Max(8, math.Min(40, 500/float64(len(cats)))))
	bc, err := plotter.NewBarChart(vals, bw)
	if err != nil {
		return effectsPanel{}, err
	}
	bc.Color = palette[0]
	bc.LineStyle.Width = 0
	p.add(bc, whiskers{cap: bw / 5, lo: lo, hi: hi})
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color, zero.Width = color.Black, vg.Points(0.5)
	p.add(zero)
	return effectsPanel{panel: p, cats: cats}, nil
}

// writeEffectsSVG writes the panel, wide enough for its categories.
func writeEffectsSVG(w io.Writer, p effectsPanel, n int) error {
	width := vg.Length(math.Max(7, 1.5+float64(n)*1.4)) * vg.Inch
	c, err := newCanvas("svg", width, 4.2*vg.Inch, 120)
	if err != nil {
		return err
	}
	p.Draw(draw.New(c))
	return writeCanvas(w, "svg", c)
}
