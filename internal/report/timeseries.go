package report

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lab-bench/lab/bench"
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

// receiverIntervals are a UDP run's intervals as the receiver counted
// them (bench.Sample.ReceiverIntervals: the record's own intervals are the
// client's, the rate it sent); nil when the run is no UDP run or its tool
// reported none.
func receiverIntervals(r results.Record) []bench.Interval {
	if !r.Intent.Bench.UDP {
		return nil
	}
	return sampleOf(r, len(r.Metrics.ReceiverIntervals) > 0 || r.Raw.Server == "").ReceiverIntervals
}

// seriesOf is a run's time series and the side that measured it: a UDP
// run's receiver's intervals when its output has them, else the record's.
func seriesOf(r results.Record) ([]bench.Interval, string) {
	if ivs := receiverIntervals(r); len(ivs) > 0 {
		return ivs, "received"
	}
	if r.Intent.Bench.UDP {
		return r.Metrics.Intervals, "sent"
	}
	return r.Metrics.Intervals, ""
}

// timeSeriesPlot is one cell's throughput over time: one line per repeat
// (iperf3's omitted intervals dashed, before 0: onTimeBase), nil when no
// repeat has intervals. The legend names each repeat while the palette
// tells them apart; more repeats than colours get one entry for them all
// (20 entries ran off the panel's bottom, and colours repeated anyway).
// A UDP cell plots what the receiver got when the records hold it, and
// its title says which side it plots.
func timeSeriesPlot(g results.CellGroup) (*panel, error) {
	if !hasIntervals(g) {
		return nil, nil
	}
	p := newPanel()
	p.Title.Text = fmt.Sprintf("%s/%s %s", g.Experiment, g.Pair, g.CellKey)
	p.X.Label.Text = "s"
	top := 0.0
	sides := map[string]bool{}
	for _, r := range g.Repeats {
		ivs, side := seriesOf(r)
		sides[side] = true
		for _, iv := range ivs {
			top = math.Max(top, iv.Bps)
		}
	}
	for _, side := range []string{"received", "sent"} {
		if sides[side] {
			p.Title.Text += "\n" + map[string]string{"received": "rate received (iperf3 server)", "sent": "rate sent (iperf3 client)"}[side]
		}
	}
	tm, _ := results.MetricByKey(results.MetricThroughput)
	us := scaleFor(tm, top)
	p.Y.Label.Text = us.unit
	p.Y.Min = 0
	p.legendRight = true // beside the lines, not over them
	warmedUp := false
	for i, r := range g.Repeats {
		ivs, _ := seriesOf(r)
		warmup, measured := onTimeBase(ivs, us.factor)
		c := palette[i%len(palette)]
		if len(warmup) > 0 {
			l, err := plotter.NewLine(warmup)
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = c, []vg.Length{vg.Points(3), vg.Points(2)}
			p.add(l)
			if !warmedUp {
				p.Legend.Add("warm-up (omitted)", l)
				warmedUp = true
			}
		}
		if len(measured) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(measured)
		if err != nil {
			return nil, err
		}
		l.Color, sc.Color = c, c
		sc.Radius = vg.Points(2)
		p.add(l, sc)
		switch {
		case len(g.Repeats) <= len(palette):
			p.Legend.Add(fmt.Sprintf("repeat %d", r.Repeat), l)
		case i == 0:
			p.Legend.Add(fmt.Sprintf("repeats %d-%d", r.Repeat, g.Repeats[len(g.Repeats)-1].Repeat), l)
		}
	}
	if warmedUp {
		p.X.Label.Text = "s (warm-up < 0)"
	}
	p.Y.Max = math.Max(top*us.factor*1.08, 0.001)
	return p, nil
}

// onTimeBase splits a run's intervals into its warm-up (iperf3's omitted
// intervals) and its measured ones, scaled by factor. iperf3 restarts its
// clock when the omit period ends (src/iperf_api.c, iperf_reset_stats,
// which the omit timer calls: rp->start_time = now), so the last omitted
// interval and the first measured one both end at about 1 s: on one line
// they zigzag. The warm-up goes on its own time base, shifted to end at 0,
// so it sits left of the measured line and never in it. Each interval is
// drawn from its start to its end at its rate, so a warm-up of one
// interval is a line too.
func onTimeBase(ivs []bench.Interval, factor float64) (warmup, measured plotter.XYs) {
	end := 0.0
	for _, iv := range ivs {
		if iv.Omitted {
			end = math.Max(end, iv.End)
		}
	}
	for _, iv := range ivs {
		if iv.Omitted {
			warmup = append(warmup, plotter.XY{X: iv.Start - end, Y: iv.Bps * factor}, plotter.XY{X: iv.End - end, Y: iv.Bps * factor})
		} else {
			measured = append(measured, plotter.XY{X: iv.End, Y: iv.Bps * factor})
		}
	}
	return warmup, measured
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
