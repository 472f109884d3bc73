package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barLabels writes each bar's value above it, rounded to whole units, at
// the offset of its BarChart: the CPU panel's bars carried no number, so
// "how busy" was read off the axis by eye (issue 35).
// A label wider than its bar runs up along it; on a bar narrower than a
// line there is none.
// The label sits above the bar's highest repeat dot when one is higher
// than the bar, not on the dots.
type barLabels struct {
	offset, width vg.Length
	vals          []float64
	reps          [][]float64 // per bar, the repeats' values (strip's)
}

// barLabelSize is the bar labels' font size.
var barLabelSize = vg.Points(8)

func (b barLabels) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := text.Style{
		Color:   plt.Y.Tick.Label.Color,
		Font:    font.From(plt.Y.Tick.Label.Font, barLabelSize),
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: plt.Y.Tick.Label.Handler,
	}
	switch {
	case sty.Width("100")+vg.Points(1) <= b.width:
	case sty.FontExtents().Height <= b.width:
		sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XLeft, draw.YCenter
	default:
		return
	}
	for i, v := range b.vals {
		if math.IsNaN(v) || v <= 0 {
			continue
		}
		top := v
		if i < len(b.reps) {
			for _, r := range b.reps[i] {
				top = math.Max(top, r)
			}
		}
		y := trY(top) + vg.Points(1.5)
		if top > v {
			y += vg.Points(2) // the dot's radius
		}
		c.FillText(sty, vg.Point{X: trX(float64(i)) + b.offset, Y: y}, strconv.FormatFloat(math.Round(v), 'f', 0, 64))
	}
}

// DataRange is the values' range, so that an axis sized by its data
// leaves them room.
func (b barLabels) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = 0, 0
	for _, v := range b.vals {
		if !math.IsNaN(v) {
			ymax = math.Max(ymax, v)
		}
	}
	return 0, float64(len(b.vals) - 1), ymin, ymax
}
