package report

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lab-bench/lab/internal/results"
)

// unitScale is the unit an axis or a column shows a metric in: a
// displayed value is the recorded one × factor.
type unitScale struct {
	unit   string
	factor float64
}

// scaleFor picks the unit of an axis or column whose largest recorded
// value is top: the catalogue's, or Mb/s for rates all below 1 Gb/s, ms
// for latencies reaching 10 000 µs, µs for jitter all below 1 ms.
func scaleFor(m results.Metric, top float64) unitScale {
	shown := top * m.Scale
	switch {
	case m.Unit == "Gb/s" && shown < 1:
		return unitScale{"Mb/s", m.Scale * 1e3}
	case m.Unit == "µs" && shown >= 10000:
		return unitScale{"ms", m.Scale * 1e-3}
	case m.Unit == "ms" && shown > 0 && shown < 1:
		return unitScale{"µs", m.Scale * 1e3}
	}
	return unitScale{m.Unit, m.Scale}
}

// topRecorded is the largest recorded value of m in the groups: a mean,
// the top of its 95 % CI or a repeat's value.
func topRecorded(m results.Metric, groups []results.CellGroup) float64 {
	top := 0.0
	for _, g := range groups {
		s := g.Metric(m.Key)
		if s.N == 0 {
			continue
		}
		top = math.Max(top, s.Mean)
		if s.Known {
			top = math.Max(top, s.CI95High)
		}
		for _, r := range g.Repeats {
			if v, ok := m.Value(r); ok {
				top = math.Max(top, v)
			}
		}
	}
	return top
}

// strip draws every repeat's value of one series as a small hollow dot,
// spread across its bar (at the BarChart's offset) so that the repeats
// behind a mean and its CI whisker are seen: a distribution, not only a
// mean.
type strip struct {
	offset, spread vg.Length
	vals           [][]float64 // per category, the repeats' values
}

func (s strip) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2), Shape: draw.RingGlyph{}}
	for i, vs := range s.vals {
		for j, v := range vs {
			dx := vg.Length(0)
			if len(vs) > 1 {
				dx = s.spread * vg.Length(float64(j)/float64(len(vs)-1)-0.5)
			}
			c.DrawGlyphNoClip(sty, vg.Point{X: trX(float64(i)) + s.offset + dx, Y: trY(v)})
		}
	}
}

func (s strip) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, vs := range s.vals {
		for _, v := range vs {
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	}
	if math.IsInf(ymin, 1) {
		ymin, ymax = 0, 0
	}
	return 0, float64(len(s.vals) - 1), ymin, ymax
}

// stats are one metric of one series: per category the mean, its 95 %
// CI (NaN: none), whether it is noisy and the repeats' values, all in
// the displayed unit.
type stats struct {
	mean, lo, hi []float64
	noisy        []bool
	reps         [][]float64
}

func seriesStats(m results.Metric, se series, factor float64) stats {
	var st stats
	for _, g := range se.groups {
		v, l, h, n := 0.0, math.NaN(), math.NaN(), false
		var reps []float64
		if g != nil && g.N > 0 {
			s := g.Metric(m.Key)
			v, n = s.Mean*factor, s.N > 0 && s.Noisy()
			if s.Known {
				l, h = math.Max(0, s.CI95Low*factor), s.CI95High*factor
			}
			for _, r := range g.Repeats {
				if x, ok := m.Value(r); ok {
					reps = append(reps, x*factor)
				}
			}
		}
		st.mean, st.lo, st.hi = append(st.mean, v), append(st.lo, l), append(st.hi, h)
		st.noisy, st.reps = append(st.noisy, n), append(st.reps, reps)
	}
	return st
}

// metricPanel is one metric's bars (mean per category and series), 95 %
// CI whiskers and the repeats as dots, its axis in the unit scaleFor
// picks; the legend (series) is drawn beside the plot, off the data.
func metricPanel(m results.Metric, groups []results.CellGroup, cats []string, ss []series, width vg.Length) (*panel, error) {
	us := scaleFor(m, topRecorded(m, groups))
	names := make([]string, len(ss))
	var vals, los, his [][]float64
	var noisy [][]bool
	var reps [][][]float64
	for s, se := range ss {
		names[s] = se.name
		st := seriesStats(m, se, us.factor)
		vals, los, his = append(vals, st.mean), append(los, st.lo), append(his, st.hi)
		noisy, reps = append(noisy, st.noisy), append(reps, st.reps)
	}
	bw := barWidth(width, names, len(cats), len(ss))
	title := metricTitle(m) + " (mean, 95% CI; dots: the repeats)"
	ylabel := us.unit
	if ylabel == "" || strings.HasPrefix(ylabel, "/") { // "/s" alone says nothing: "transactions/s"
		ylabel = m.Label
	}
	p, err := barPlot(title, ylabel, cats, names, vals, los, his, noisy, bw)
	if err != nil {
		return nil, err
	}
	addStrips(p, reps, bw)
	small(p)
	p.legendRight = len(ss) > 1
	if len(ss) == 1 {
		p.Legend = plot.NewLegend()
	}
	p.Y.Max = topRecorded(m, groups) * us.factor * 1.08
	if p.Y.Max == 0 {
		p.Y.Max = 1 // every value 0 (no loss at all): an axis 0-1, not 0-1e-9
	}
	if m.Max > 0 {
		p.Y.Max = math.Min(p.Y.Max, m.Max*us.factor)
	}
	return p, nil
}

// addStrips adds the repeats' dots of each series to a bar panel whose
// bars are bw wide and centred as barPlot centres them.
func addStrips(p *panel, reps [][][]float64, bw vg.Length) {
	n := len(reps)
	for s := range reps {
		off := vg.Length(float64(s)-float64(n-1)/2) * bw
		p.add(strip{offset: off, spread: bw * 0.6, vals: reps[s]})
	}
}

// panelTitles name the metrics whose column label is too short for a
// panel's title.
var panelTitles = map[string]string{
	results.MetricSenderThroughput: "sender throughput",
	results.MetricBackground:       "background load's throughput",
}

// metricTitle is a panel's title: the metric's label without its unit.
func metricTitle(m results.Metric) string {
	if t, ok := panelTitles[m.Key]; ok {
		return t
	}
	t := m.Label
	for _, u := range []string{" Gb/s", " µs", " ms", " %"} {
		t = strings.TrimSuffix(t, u)
	}
	return t
}

// extraMetrics are the metrics that get a panel of their own beside the
// throughput and CPU panels, when some cell measured them.
// The sender's throughput (a hidden column), a background {} load's own
// throughput and the benchmark tool's own CPU were recorded and never
// plotted (issue 35).
var extraMetrics = []string{
	results.MetricTransactions, results.MetricLoss, results.MetricJitter, results.MetricPackets,
	results.MetricRetransmits, results.MetricSenderThroughput, results.MetricBackground,
	results.MetricServerToolCPU, results.MetricClientToolCPU, results.MetricServerCPB, results.MetricClientCPB,
}

// measured reports whether some cell measured the metric: for
// retransmits, which every run records (0 for UDP and request/response
// runs), whether some run retransmitted.
func measured(key string, groups []results.CellGroup) bool {
	for _, g := range groups {
		s := g.Metric(key)
		if s.N > 0 && (key != results.MetricRetransmits || s.Max > 0) {
			return true
		}
	}
	return false
}

// metricPanels are the panels of every metric a cell measured besides
// throughput and CPU: latency percentiles and CDF, transactions/s, UDP
// loss, jitter and packets/s, retransmits, cycles per bit.
func metricPanels(groups []results.CellGroup, width vg.Length) ([]*panel, error) {
	cats, ss := layout(groups)
	var out []*panel
	if p, err := latencyPanel(groups, width); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, p)
	}
	if p, err := cdfPanel(groups); err != nil {
		return nil, err
	} else if p != nil {
		out = append(out, p)
	}
	for _, key := range extraMetrics {
		if !measured(key, groups) {
			continue
		}
		m, _ := results.MetricByKey(key)
		p, err := metricPanel(m, groups, cats, ss, width)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// draw draws the panel; a panel with legendRight gets its legend in a
// column to the right of the plot instead of over the data.
func (p *panel) draw(c draw.Canvas) {
	if !p.legendRight {
		p.Title.Text = fitText(p.Title.Text, p.Title.TextStyle, c.Max.X-c.Min.X)
		p.Draw(c)
		return
	}
	leg := p.Legend
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Millimeter
	r := leg.Rectangle(c)
	// 30 % to spare: a browser without Liberation fonts (which measured
	// the text) substitutes a wider family, DejaVu Serif on Debian.
	w := (r.Max.X-r.Min.X)*1.3 + 3*vg.Millimeter
	if w <= 3*vg.Millimeter {
		p.Draw(c)
		return
	}
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	p.Title.Text = fitText(p.Title.Text, p.Title.TextStyle, c.Max.X-c.Min.X-w)
	p.Plot.Draw(draw.Crop(c, 0, -w, 0, 0))
	top := vg.Length(strings.Count(p.Title.Text, "\n")+1)*p.Title.TextStyle.Font.Size*1.3 + 3*vg.Millimeter
	leg.Draw(draw.Crop(c, c.Max.X-c.Min.X-w+2*vg.Millimeter, 0, 0, -top))
}

// panelW and panelH are the size of one extra panel in the SVG/PNG figure and in
// the HTML report.
var panelW, panelH = 6 * vg.Inch, 3.6 * vg.Inch

// Font sizes of the extra panels, smaller than gonum/plot's 12 pt: two
// panels share the figure's width.
var titleSize, legendSize = vg.Points(11), vg.Points(10)

// small sets the extra panels' font sizes.
func small(p *panel) {
	p.Title.TextStyle.Font.Size = titleSize
	p.Legend.TextStyle.Font.Size = legendSize
}

// barWidth is the width of each of a panel's bars: the plot area (the
// panel less its y axis and, with several series, the legend beside it)
// shared by cats categories of n bars and a gap of one.
func barWidth(width vg.Length, names []string, cats, n int) vg.Length {
	area := width - 0.7*vg.Inch
	if len(names) > 1 {
		leg := plot.NewLegend()
		leg.TextStyle.Font.Size = legendSize
		wide := vg.Length(0)
		for _, name := range names {
			wide = max(wide, leg.TextStyle.Rectangle(" "+name).Max.X)
		}
		area -= (wide+leg.ThumbnailWidth)*1.3 + 3*vg.Millimeter
	}
	return max(area, vg.Inch) * 0.85 / vg.Length(cats*(n+1))
}

// fitText breaks txt's lines at spaces (or after commas and slashes) so
// that each fits width in sty: gonum centres a title over the plot, and a
// title wider than the plot started left of the canvas ("99: base …" for
// "latency p99: base …", issue 35). A word wider than width stays whole.
func fitText(txt string, sty text.Style, width vg.Length) string {
	if width <= 0 {
		return txt
	}
	var out []string
	for _, line := range strings.Split(txt, "\n") {
		cur := ""
		for _, word := range breakable(line) {
			if cur != "" && sty.Width(cur+word) > width {
				out = append(out, strings.TrimRight(cur, " "))
				cur = strings.TrimLeft(word, " ")
				continue
			}
			cur += word
		}
		out = append(out, strings.TrimRight(cur, " "))
	}
	return strings.Join(out, "\n")
}

// breakable splits line into pieces that may end a line: each ends after
// a space, a comma or a slash, so concatenated they are line again.
func breakable(line string) []string {
	var parts []string
	start := 0
	for i, r := range line {
		if r == ' ' || r == ',' || r == '/' {
			parts = append(parts, line[start:i+1])
			start = i + 1
		}
	}
	if start < len(line) {
		parts = append(parts, line[start:])
	}
	return parts
}
