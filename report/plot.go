package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lab-bench/lab/results"
)

// palette colours the series (colour-blind safe, Okabe–Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{86, 180, 233, 255}, color.RGBA{213, 94, 0, 255},
}

// series is one bar colour: the cells sharing a value of the last matrix
// dimension, indexed by category.
type series struct {
	name   string
	groups []*results.CellGroup // nil where the category lacks the value
}

// layout splits groups into categories (experiment, pair and every matrix
// value but the last) on the x axis and series (the last dimension's
// values) side by side within a category.
func layout(groups []results.CellGroup) (cats []string, ss []series) {
	dims := dimensions(groups)
	multiExp, multiPair := distinct(groups, func(g results.CellGroup) string { return g.Experiment }) > 1,
		distinct(groups, func(g results.CellGroup) string { return g.Pair }) > 1
	last := ""
	if len(dims) > 0 {
		last = dims[len(dims)-1]
	}
	catIndex := map[string]int{}
	serIndex := map[string]int{}
	for i := range groups {
		g := &groups[i]
		var parts []string
		if multiExp {
			parts = append(parts, g.Experiment)
		}
		if multiPair {
			parts = append(parts, g.Pair)
		}
		for _, d := range dims {
			if d != last {
				parts = append(parts, d+"="+cellValue(*g, d))
			}
		}
		cat := strings.Join(parts, "\n")
		ci, ok := catIndex[cat]
		if !ok {
			ci = len(cats)
			catIndex[cat] = ci
			cats = append(cats, cat)
			for s := range ss {
				ss[s].groups = append(ss[s].groups, nil)
			}
		}
		name := "all"
		if last != "" {
			name = last + "=" + cellValue(*g, last)
		}
		si, ok := serIndex[name]
		if !ok {
			si = len(ss)
			serIndex[name] = si
			ss = append(ss, series{name: name, groups: make([]*results.CellGroup, len(cats))})
		}
		ss[si].groups[ci] = g
	}
	if len(cats) == 1 && cats[0] == "" {
		cats[0] = " "
	}
	return cats, ss
}

func distinct(groups []results.CellGroup, f func(results.CellGroup) string) int {
	seen := map[string]bool{}
	for _, g := range groups {
		seen[f(g)] = true
	}
	return len(seen)
}

// whiskers draws 95 % CI error bars on the bars of one series, at the same
// offset as its BarChart (so they line up exactly); a noisy cell's bar is
// red and dashed.
type whiskers struct {
	offset, cap vg.Length
	lo, hi      []float64 // NaN: no interval
	noisy       []bool
}

func (w whiskers) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for i := range w.lo {
		if math.IsNaN(w.lo[i]) {
			continue
		}
		sty := sty
		if i < len(w.noisy) && w.noisy[i] {
			sty.Color, sty.Dashes = noisyColor, []vg.Length{vg.Points(3), vg.Points(2)}
		}
		x := trX(float64(i)) + w.offset
		y0, y1 := trY(w.lo[i]), trY(w.hi[i])
		c.StrokeLine2(sty, x, y0, x, y1)
		c.StrokeLine2(sty, x-w.cap, y0, x+w.cap, y0)
		c.StrokeLine2(sty, x-w.cap, y1, x+w.cap, y1)
	}
}

func (w whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for i := range w.hi {
		if !math.IsNaN(w.hi[i]) {
			ymin, ymax = math.Min(ymin, w.lo[i]), math.Max(ymax, w.hi[i])
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 0
	}
	return 0, float64(len(w.hi) - 1), ymin, ymax
}

// barPlot makes one panel: for each series, the value of each category
// (and its 95 % CI when ci is set).
func barPlot(title, ylabel string, cats []string, names []string, values, los, his [][]float64, noisy [][]bool, barWidth vg.Length) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.NominalX(cats...)
	n := len(names)
	for s := range names {
		bc, err := plotter.NewBarChart(plotter.Values(values[s]), barWidth)
		if err != nil {
			return nil, err
		}
		bc.Color = palette[s%len(palette)]
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(float64(s)-float64(n-1)/2) * barWidth
		p.Add(bc)
		p.Legend.Add(names[s], bc)
		if los != nil {
			p.Add(whiskers{offset: bc.Offset, cap: barWidth / 5, lo: los[s], hi: his[s], noisy: noisy[s]})
		}
	}
	return p, nil
}

// plots builds the throughput panel (mean with 95 % CI whiskers) and the
// CPU panel (mean system-wide busy % of server and client per category
// and series).
func plots(info results.RunInfo, groups []results.CellGroup, width vg.Length) (*plot.Plot, *plot.Plot, error) {
	cats, ss := layout(groups)
	names := make([]string, len(ss))
	tp := make([][]float64, len(ss))
	lo := make([][]float64, len(ss))
	hi := make([][]float64, len(ss))
	noisy := make([][]bool, len(ss))
	anyNoisy := false
	for s, se := range ss {
		names[s] = se.name
		for _, g := range se.groups {
			v, l, h := 0.0, math.NaN(), math.NaN()
			if g != nil && g.N > 0 {
				sum := g.ThroughputBps.Scale(1e-9)
				v = sum.Mean
				if sum.Known {
					l, h = math.Max(0, sum.CI95Low), sum.CI95High
				}
			}
			n := g != nil && g.ThroughputBps.Noisy()
			anyNoisy = anyNoisy || n
			tp[s], lo[s], hi[s], noisy[s] = append(tp[s], v), append(lo[s], l), append(hi[s], h), append(noisy[s], n)
		}
	}
	panel := width * leftShare
	bw := panel * 0.8 / vg.Length(len(cats)*(len(ss)+1))
	title := fmt.Sprintf("%s, run %s: throughput (mean, 95%% CI)", info.Lab, info.ID)
	if anyNoisy {
		title += fmt.Sprintf("\nred dashed CI: noisy (half-width > %.0f %% of the mean)", results.NoisyRatio*100)
	}
	tput, err := barPlot(title, "Gb/s", cats, names, tp, lo, hi, noisy, bw)
	if err != nil {
		return nil, nil, err
	}

	// CPU: server and client of each series, side by side.
	var cnames []string
	var cvals [][]float64
	for _, se := range ss {
		for _, end := range []string{"server", "client"} {
			var vals []float64
			for _, g := range se.groups {
				v := 0.0
				if g != nil && g.N > 0 {
					v = g.ServerCPU.Mean
					if end == "client" {
						v = g.ClientCPU.Mean
					}
				}
				vals = append(vals, v)
			}
			label := end
			if len(ss) > 1 {
				label = se.name + " " + end
			}
			cnames, cvals = append(cnames, label), append(cvals, vals)
		}
	}
	cbw := (width - panel) * 0.8 / vg.Length(len(cats)*(len(cnames)+1))
	cpu, err := barPlot("system-wide CPU busy (mean)", "%", cats, cnames, cvals, nil, nil, nil, cbw)
	if err != nil {
		return nil, nil, err
	}
	// Head room above the bars for the legend.
	cpu.Y.Max = 100 * headroom
	top := 0.0
	for s := range tp {
		for i := range tp[s] {
			top = math.Max(top, tp[s][i])
			if !math.IsNaN(hi[s][i]) {
				top = math.Max(top, hi[s][i])
			}
		}
	}
	if top > 0 {
		tput.Y.Max = top * headroom
	}
	return tput, cpu, nil
}

// noisyColor marks the CI whisker of a noisy cell.
var noisyColor = color.RGBA{R: 0xc0, A: 0xff}

// headroom scales each panel's y range so the legend clears the bars.
const headroom = 1.35

// leftShare is the throughput panel's share of the figure's width.
const leftShare = 0.58

// renderPlot writes the throughput and CPU panels side by side as SVG or
// PNG.
func renderPlot(w io.Writer, format string, info results.RunInfo, groups []results.CellGroup) error {
	if len(groups) == 0 {
		return fmt.Errorf("report %s: no results to plot", format)
	}
	cats, ss := layout(groups)
	width := vg.Length(math.Max(9, 2.2+float64(len(cats)*(len(ss)+1))*0.6)) * vg.Inch
	height := 4.5 * vg.Inch
	tput, cpu, err := plots(info, groups, width)
	if err != nil {
		return err
	}
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "svg":
		canvas = vgsvg.New(width, height)
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(120),
			vgimg.UseBackgroundColor(color.White))}
	default:
		return fmt.Errorf("unknown plot format %q", format)
	}
	dc := draw.New(canvas)
	pad := vg.Millimeter * 3
	split := width * leftShare
	tput.Draw(draw.Crop(dc, pad, -(width - split), pad, -pad))
	cpu.Draw(draw.Crop(dc, split+pad, -pad, pad, -pad))
	if _, err := canvas.WriteTo(w); err != nil {
		return fmt.Errorf("report %s: %w", format, err)
	}
	return nil
}
