package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// CompareFormats are the formats RenderCompareFormat knows.
var CompareFormats = []string{"table", "svg", "html"}

// RenderCompareFormat writes a comparison as RenderCompare's table, as
// an SVG overlaying base and test per cell (mean, 95 % CI, the verdict
// above each pair of bars), or as a self-contained HTML page holding
// that plot and the table.
func RenderCompareFormat(w io.Writer, format, base, test string, ds []verdicts.Delta, opt CompareOptions) error {
	switch format {
	case "", "table":
		return RenderCompare(w, base, test, ds, opt)
	case "svg":
		return renderCompareSVG(w, base, test, ds)
	case "html":
		return renderCompareHTML(w, base, test, ds, opt)
	}
	return fmt.Errorf("unknown compare format %q (known: %s)", format, strings.Join(CompareFormats, ", "))
}

// changeInk colours a comparison verdict as the HTML report colours verdicts.
var changeInk = map[verdicts.Change]color.Color{
	verdicts.Improved:      color.RGBA{0x1a, 0x7f, 0x37, 0xff},
	verdicts.Regressed:     color.RGBA{0xc6, 0x28, 0x28, 0xff},
	verdicts.TooNoisy:      color.RGBA{0x9a, 0x67, 0x00, 0xff},
	verdicts.Incomplete:    color.RGBA{0x9a, 0x67, 0x00, 0xff},
	verdicts.NotComparable: color.RGBA{0x9a, 0x67, 0x00, 0xff},
}

// verdictLabels writes each cell's verdict and delta above its bars, in
// the verdict's colour.
type verdictLabels struct {
	texts  []string
	colors []color.Color
	ys     []float64
}

func (v verdictLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := text.Style{Font: plt.Title.TextStyle.Font, Handler: plt.Title.TextStyle.Handler, XAlign: draw.XCenter}
	sty.Font.Size = vg.Points(9)
	for i, t := range v.texts {
		sty.Color = v.colors[i]
		c.FillText(sty, vg.Point{X: trX(float64(i)), Y: trY(v.ys[i]) + vg.Millimeter}, t)
	}
}

// comparePanel is the overlay: per cell, the base's bar (blue) and the
// test's (orange), each with its 95 % CI whisker, the verdict above.
func comparePanel(base, test string, ds []verdicts.Delta) (*panel, error) {
	if len(ds) == 0 {
		return nil, fmt.Errorf("compare: no cells to plot")
	}
	m, ok := results.MetricByKey(ds[0].Metric)
	if !ok {
		m = results.Metrics[0]
	}
	var cats []string
	sums := make([][]results.Summary, 2)
	var labels verdictLabels
	for _, d := range ds {
		cats = append(cats, d.Experiment+"/"+d.Pair+"\n"+strings.ReplaceAll(d.CellKey, ",", "\n"))
		sums[0], sums[1] = append(sums[0], d.Base), append(sums[1], d.Test)
		t := string(d.Change)
		if d.Base.N > 0 && d.Test.N > 0 && d.Base.Mean != 0 {
			t += fmt.Sprintf("\n%+.1f %%", 100*d.RelDiff)
		}
		c := changeInk[d.Change]
		if c == nil {
			c = color.Gray{Y: 80}
		}
		labels.texts, labels.colors = append(labels.texts, t), append(labels.colors, c)
	}
	title := fmt.Sprintf("%s: base %s vs test %s (mean, 95%% CI; verdict above)", metricTitle(m), base, test)
	p, highs, err := overlayPanel(title, m, cats, []string{"base " + base, "test " + test}, sums)
	if err != nil {
		return nil, err
	}
	labels.ys = highs
	p.add(labels)
	return p, nil
}

// overlayPanel is the bars of several series per category — a
// comparison's base and test, or several runs — each series' mean with
// its 95 % CI whisker, one colour per series, the legend (naming them)
// beside the plot and 30 % headroom above the bars for labels. sums[s][c]
// is series s's summary of category c; highs are each category's top
// (mean or CI) in the axis' unit, where a label above its bars goes.
func overlayPanel(title string, m results.Metric, cats, names []string, sums [][]results.Summary) (*panel, []float64, error) {
	top := 0.0
	for _, ss := range sums {
		for _, s := range ss {
			top = math.Max(top, s.Mean)
			if s.Known {
				top = math.Max(top, s.CI95High)
			}
		}
	}
	us := scaleFor(m, top)
	n := len(names)
	vals, los, his := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	noisy := make([][]bool, n)
	highs := make([]float64, len(cats))
	for side, ss := range sums {
		for c, s := range ss {
			v, l, h := s.Mean*us.factor, math.NaN(), math.NaN()
			if s.Known {
				l, h = math.Max(0, s.CI95Low*us.factor), s.CI95High*us.factor
			}
			highs[c] = math.Max(highs[c], v)
			if s.Known {
				highs[c] = math.Max(highs[c], h)
			}
			vals[side], los[side], his[side] = append(vals[side], v), append(los[side], l), append(his[side], h)
			noisy[side] = append(noisy[side], s.Noisy())
		}
	}
	bw := barWidth(compareWidth(len(cats)), names, len(cats), n)
	p, err := barPlot(title, us.unit, cats, names, vals, los, his, noisy, bw)
	if err != nil {
		return nil, nil, err
	}
	p.legendRight = true
	p.Y.Max = top * us.factor * 1.3
	return p, highs, nil
}

// renderCompareSVG writes the overlay as SVG.
func renderCompareSVG(w io.Writer, base, test string, ds []verdicts.Delta) error {
	p, err := comparePanel(base, test, ds)
	if err != nil {
		return err
	}
	return writeSizedSVG(w, p, compareWidth(len(ds)), 4.5*vg.Inch)
}

// compareWidth is the overlay's width: wider for many cells.
func compareWidth(cells int) vg.Length {
	return vg.Length(math.Max(8, 3+1.2*float64(cells))) * vg.Inch
}

var compareTmpl = template.Must(template.New("compare").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>lab compare {{.Base}} → {{.Test}}</title>
<style>body { font-family: 'Liberation Sans', Arial, Helvetica, sans-serif; margin: 1.5em; color: #222; }
pre { font-family: 'Liberation Mono', 'Courier New', monospace; font-size: 0.85em; }
.plot svg { max-width: 100%; height: auto; }</style></head>
<body data-ready="1"><h1>lab compare: base {{.Base}} → test {{.Test}}</h1>
<div class="plot" id="compare-plot">{{.Plot}}</div>
<h2>Cells</h2><pre id="compare-table">{{.Table}}</pre>
</body></html>
`))

// renderCompareHTML writes one self-contained page: the overlay and the
// comparison table.
func renderCompareHTML(w io.Writer, base, test string, ds []verdicts.Delta, opt CompareOptions) error {
	svg, err := inlineSVG(func(w io.Writer) error { return renderCompareSVG(w, base, test, ds) })
	if err != nil {
		return err
	}
	var table bytes.Buffer
	opt.Color = false
	if err := RenderCompare(&table, base, test, ds, opt); err != nil {
		return err
	}
	return compareTmpl.Execute(w, struct {
		Base, Test string
		Plot       template.HTML
		Table      string
	}{base, test, svg, table.String()})
}
