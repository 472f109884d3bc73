package report

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lab-bench/lab/internal/results"
)

// hasIntervals reports whether any repeat of g has a time series.
func hasIntervals(g results.CellGroup) bool {
	for _, r := range g.Repeats {
		if len(r.Metrics.Intervals) > 0 {
			return true
		}
	}
	return false
}

// timeSeriesPlot is one cell's throughput over time: one line per repeat
// (iperf3's omitted intervals dashed), nil when no repeat has intervals.
func timeSeriesPlot(g results.CellGroup) (*panel, error) {
	if !hasIntervals(g) {
		return nil, nil
	}
	p := newPanel()
	p.Title.Text = fmt.Sprintf("%s/%s %s", g.Experiment, g.Pair, g.CellKey)
	p.X.Label.Text = "s"
	top := 0.0
	for _, r := range g.Repeats {
		for _, iv := range r.Metrics.Intervals {
			top = math.Max(top, iv.Bps)
		}
	}
	tm, _ := results.MetricByKey(results.MetricThroughput)
	us := scaleFor(tm, top)
	p.Y.Label.Text = us.unit
	p.Y.Min = 0
	p.legendRight = true // beside the lines, not over them
	for i, r := range g.Repeats {
		var pts plotter.XYs
		for _, iv := range r.Metrics.Intervals {
			pts = append(pts, plotter.XY{X: iv.End, Y: iv.Bps * us.factor})
		}
		if len(pts) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		l.Color, sc.Color = c, c
		sc.Radius = vg.Points(2)
		p.add(l, sc)
		p.Legend.Add(fmt.Sprintf("repeat %d", r.Repeat), l)
	}
	p.Y.Max = math.Max(top*us.factor*1.08, 0.001)
	return p, nil
}

// renderTimeSeries writes every cell's time series (timeSeriesPlot), in a
// grid of up to three panels a row, as SVG or PNG.
func renderTimeSeries(w io.Writer, format string, groups []results.CellGroup) error {
	var plots []*panel
	for _, g := range groups {
		p, err := timeSeriesPlot(g)
		if err != nil {
			return err
		}
		if p != nil {
			plots = append(plots, p)
		}
	}
	if len(plots) == 0 {
		return fmt.Errorf("report %s: no run has a time series (intervals)", format)
	}
	cols := min(3, len(plots))
	rows := (len(plots) + cols - 1) / cols
	pw, ph := 4*vg.Inch, 3*vg.Inch
	width, height := pw*vg.Length(cols), ph*vg.Length(rows)
	canvas, err := newCanvas(format, width, height, 100)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	pad := vg.Millimeter * 3
	for i, p := range plots {
		x, y := vg.Length(i%cols)*pw, height-vg.Length(i/cols+1)*ph
		p.draw(draw.Crop(dc, x+pad, x+pw-width-pad, y+pad, y+ph-height-pad))
	}
	return writeCanvas(w, format, canvas)
}

// writePanelSVG writes one panel as a 5 × 3 inch SVG.
func writePanelSVG(w io.Writer, p *panel) error {
	return writeSizedSVG(w, p, 5*vg.Inch, 3*vg.Inch)
}

// writeSizedSVG writes one panel as an SVG of the size.
func writeSizedSVG(w io.Writer, p *panel, width, height vg.Length) error {
	c := vgsvg.New(width, height)
	p.draw(draw.New(c))
	return writeCanvas(w, "svg", c)
}
