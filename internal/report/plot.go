package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lab-bench/lab/internal/results"
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

// panel is a plot that remembers what was added to it (gonum/plot does
// not say), so tests can inspect the bars and whiskers of a figure.
type panel struct {
	*plot.Plot
	items []plot.Plotter
	// legendRight draws the legend beside the plot (panel.draw).
	legendRight bool
}

// newPanel is an empty panel whose y axis is marked at round numbers
// (niceTicks).
func newPanel() *panel {
	p := &panel{Plot: plot.New()}
	p.Y.Tick.Marker = niceTicks{}
	return p
}

// add adds plotters to the plot and remembers them.
func (p *panel) add(ps ...plot.Plotter) {
	p.Add(ps...)
	p.items = append(p.items, ps...)
}

// barPlot makes one panel: for each series, the value of each category
// (and its 95 % CI when ci is set).
func barPlot(title, ylabel string, cats []string, names []string, values, los, his [][]float64, noisy [][]bool, barWidth vg.Length) (*panel, error) {
	p := newPanel()
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
		p.add(bc)
		p.Legend.Add(names[s], bc)
		if los != nil {
			p.add(whiskers{offset: bc.Offset, cap: barWidth / 5, lo: los[s], hi: his[s], noisy: noisy[s]})
		}
	}
	return p, nil
}

// plots builds the throughput panel (mean with 95 % CI whiskers) and the
// CPU panel (mean system-wide busy % of server and client per category
// and series).
func plots(info results.RunInfo, groups []results.CellGroup, width vg.Length) (*panel, *panel, error) {
	cats, ss := layout(groups)
	tm, _ := results.MetricByKey(results.MetricThroughput)
	us := scaleFor(tm, topRecorded(tm, groups))
	names := make([]string, len(ss))
	tp := make([][]float64, len(ss))
	lo := make([][]float64, len(ss))
	hi := make([][]float64, len(ss))
	noisy := make([][]bool, len(ss))
	reps := make([][][]float64, len(ss))
	anyNoisy := false
	for s, se := range ss {
		names[s] = se.name
		st := seriesStats(tm, se, us.factor)
		tp[s], lo[s], hi[s], noisy[s], reps[s] = st.mean, st.lo, st.hi, st.noisy, st.reps
		anyNoisy = anyNoisy || slices.Contains(st.noisy, true)
	}
	panel := width * leftShare
	bw := barWidth(panel, names, len(cats), len(ss))
	title := fmt.Sprintf("%s, run %s\nthroughput (mean, 95%% CI; dots: the repeats)", info.Lab, info.ID)
	if slices.ContainsFunc(groups, func(g results.CellGroup) bool { return g.N == 1 }) {
		title += "\nno whisker: a cell with n = 1 has no confidence interval"
	}
	if anyNoisy {
		title += fmt.Sprintf("\nred dashed CI: noisy (half-width > %.0f %% of the mean)", results.NoisyRatio*100)
	}
	tput, err := barPlot(title, us.unit, cats, names, tp, lo, hi, noisy, bw)
	if err != nil {
		return nil, nil, err
	}
	addStrips(tput, reps, bw)
	tput.legendRight = len(ss) > 1
	if len(ss) == 1 {
		tput.Legend = plot.NewLegend()
	}

	cpu, err := cpuPlot(groups, cats, ss, width-panel)
	if err != nil {
		return nil, nil, err
	}
	if top := topRecorded(tm, groups) * us.factor; top > 0 {
		tput.Y.Max = top * 1.08
	}
	return tput, cpu, nil
}

// cpuEnds are the ends whose CPU the CPU panel shows: server and client,
// and the router when a run measured it.
func cpuEnds(groups []results.CellGroup) []string {
	ends := []string{"server", "client"}
	for _, g := range groups {
		if g.Metric(results.MetricRouterCPU).N > 0 {
			return append(ends, "router")
		}
	}
	return ends
}

// shade tints a series colour per end, so that a series keeps its colour
// in both panels: the server in the series colour, the client lighter,
// the router darker.
func shade(c color.Color, end string) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32, to float64, f float64) uint8 { return uint8(float64(v>>8)*(1-f) + to*f) }
	switch end {
	case "client":
		return color.RGBA{mix(r, 255, 0.5), mix(g, 255, 0.5), mix(b, 255, 0.5), 255}
	case "router":
		return color.RGBA{mix(r, 0, 0.45), mix(g, 0, 0.45), mix(b, 0, 0.45), 255}
	}
	return c
}

// cpuPlot is the CPU panel: the mean system-wide busy % of each end of
// each series and category, in the series' colour shaded per end, its
// value above it, on a 0-100 % axis; its legend (the shades) is drawn above the panel by
// drawPanel, so no bar hides under it.
func cpuPlot(groups []results.CellGroup, cats []string, ss []series, width vg.Length) (*panel, error) {
	ends := cpuEnds(groups)
	key := map[string]string{"server": results.MetricServerCPU, "client": results.MetricClientCPU, "router": results.MetricRouterCPU}
	p := newPanel()
	p.Title.Text = "system-wide CPU busy (mean; dots: the repeats)"
	p.Y.Label.Text = "%"
	// To 110 %, marked to 100 %: a bar's label (barLabels) above a busy
	// bar stays below the title.
	p.Y.Min, p.Y.Max = 0, 110
	p.Y.Tick.Marker = niceTicks{upTo: 100}
	p.NominalX(cats...)
	n := len(ss) * len(ends)
	bw := width * 0.8 / vg.Length(len(cats)*(n+1))
	i := 0
	for si, se := range ss {
		for _, end := range ends {
			var vals plotter.Values
			for _, g := range se.groups {
				v := 0.0
				if g != nil {
					v = g.Metric(key[end]).Mean
				}
				vals = append(vals, v)
			}
			bc, err := plotter.NewBarChart(vals, bw)
			if err != nil {
				return nil, err
			}
			bc.Color = shade(palette[si%len(palette)], end)
			bc.LineStyle.Width = 0
			bc.Offset = vg.Length(float64(i)-float64(n-1)/2) * bw
			p.add(bc)
			m, _ := results.MetricByKey(key[end])
			reps := seriesStats(m, se, 1).reps
			p.add(strip{offset: bc.Offset, spread: bw * 0.5, vals: reps})
			p.add(barLabels{offset: bc.Offset, width: bw, vals: vals, reps: reps})
			i++
		}
	}
	for _, end := range ends {
		thumb, _ := plotter.NewBarChart(plotter.Values{0}, bw)
		thumb.Color = shade(color.Gray{Y: 110}, end)
		thumb.LineStyle.Width = 0
		p.Legend.Add(end+" ("+map[string]string{"server": "series colour", "client": "lighter", "router": "darker"}[end]+")", thumb)
	}
	return p, nil
}

// drawPanel draws p into c with its legend in a strip above the plot
// area instead of over the bars (for the CPU panel, whose axis ends at
// 100 % and has no room above the bars).
func drawPanel(c draw.Canvas, p *plot.Plot) {
	leg := p.Legend
	p.Legend = plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Millimeter // the bar thumbnails are as tall as a line: apart, they do not touch
	h := leg.Rectangle(c).Max.Y - leg.Rectangle(c).Min.Y + 2*vg.Millimeter
	leg.Draw(draw.Crop(c, vg.Centimeter, 0, -h+c.Max.Y-c.Min.Y, 0))
	p.Draw(draw.Crop(c, 0, 0, 0, -h))
}

// noisyColor marks the CI whisker of a noisy cell.
var noisyColor = color.RGBA{R: 0xc0, A: 0xff}

// leftShare is the throughput panel's share of the figure's width.
const leftShare = 0.58

// figureTopH is the height of the throughput and CPU panels' row.
const figureTopH = 4.5 * vg.Inch

// renderPlot writes the throughput and CPU panels side by side as SVG or
// PNG, and below them, two a row, the panel of every other metric some
// cell measured (metricPanels).
func renderPlot(w io.Writer, format string, info results.RunInfo, groups []results.CellGroup) error {
	return renderFigure(w, format, info, groups, true)
}

// renderFigure is renderPlot, with the extra panels or without them (the
// HTML report shows each in a figure of its own).
func renderFigure(w io.Writer, format string, info results.RunInfo, groups []results.CellGroup, withExtra bool) error {
	if len(groups) == 0 {
		return fmt.Errorf("report %s: no results to plot", format)
	}
	width := figureWidth(groups)
	topH := figureTopH
	tput, cpu, err := plots(info, groups, width)
	if err != nil {
		return err
	}
	var extra []*panel
	if withExtra {
		if extra, err = metricPanels(groups, width/2); err != nil {
			return err
		}
	}
	rows := (len(extra) + 1) / 2
	height := topH + vg.Length(rows)*panelH
	canvas, err := newCanvas(format, width, height, 120)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	pad := vg.Millimeter * 3
	split := width * leftShare
	top := draw.Crop(dc, 0, 0, height-topH, 0)
	tput.draw(draw.Crop(top, pad, -(width - split), pad, -pad))
	drawPanel(draw.Crop(top, split+pad, -pad, pad, -pad), cpu.Plot)
	half := width / 2
	for i, p := range extra {
		x, y := vg.Length(i%2)*half, height-topH-vg.Length(i/2+1)*panelH
		p.draw(draw.Crop(dc, x+pad, x+half-width-pad, y+pad, y+panelH-height-pad))
	}
	return writeCanvas(w, format, canvas)
}

// figureWidth is the width of the figure: at least 12 inches, more for
// many categories and series.
func figureWidth(groups []results.CellGroup) vg.Length {
	cats, ss := layout(groups)
	return vg.Length(math.Max(12, 2.2+float64(len(cats)*(len(ss)+1))*0.6)) * vg.Inch
}

// canvas is what a plot is drawn on and then written out.
type canvas interface {
	vg.CanvasSizer
	io.WriterTo
}

// newCanvas is an SVG or PNG (white background, dpi) canvas of the size.
func newCanvas(format string, width, height vg.Length, dpi int) (canvas, error) {
	switch format {
	case "svg":
		return vgsvg.New(width, height), nil
	case "png":
		return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi),
			vgimg.UseBackgroundColor(color.White))}, nil
	}
	return nil, fmt.Errorf("unknown plot format %q", format)
}

// writeCanvas writes a finished canvas; an SVG's texts get the widths
// gonum measured (fixTextLengths) and its fonts a generic fallback, so that a viewer without Liberation fonts (gonum/plot's,
// which measured the text) substitutes a metric-compatible family instead
// of an arbitrary one whose wider glyphs overlap.
func writeCanvas(w io.Writer, format string, canvas io.WriterTo) error {
	if format != "svg" {
		if _, err := canvas.WriteTo(w); err != nil {
			return fmt.Errorf("report %s: %w", format, err)
		}
		return nil
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return fmt.Errorf("report %s: %w", format, err)
	}
	if _, err := w.Write(fontFallback(fixTextLengths(buf.Bytes()))); err != nil {
		return fmt.Errorf("report %s: %w", format, err)
	}
	return nil
}

// fontFallback adds generic families to the Liberation fonts an SVG names
// (Liberation Serif, Sans and Mono are metric-compatible with Times New
// Roman, Arial and Courier New, which the generic families usually are).
func fontFallback(svg []byte) []byte {
	for _, f := range [][2]string{
		{"font-family:Liberation Serif;", "font-family:'Liberation Serif','Times New Roman',Times,serif;"},
		{"font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"},
		{"font-family:Liberation Mono;", "font-family:'Liberation Mono','Courier New',monospace;"},
	} {
		svg = bytes.ReplaceAll(svg, []byte(f[0]), []byte(f[1]))
	}
	return svg
}
