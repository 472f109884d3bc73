package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// latencyKeys are the latency metrics the percentile panel shows, in
// order.
var latencyKeys = []string{results.MetricLatencyMean, results.MetricLatencyP50, results.MetricLatencyP90, results.MetricLatencyP99}

// cellLabels are the x labels of panels with one slot per cell: the
// layout's category and series names joined.
func cellLabels(groups []results.CellGroup) ([]string, []*results.CellGroup) {
	cats, ss := layout(groups)
	var labels []string
	var cells []*results.CellGroup
	for ci, cat := range cats {
		for _, se := range ss {
			g := se.groups[ci]
			if g == nil {
				continue
			}
			l := cat
			if se.name != "all" {
				if l == " " {
					l = se.name
				} else {
					l += "\n" + se.name
				}
			}
			labels, cells = append(labels, l), append(cells, g)
		}
	}
	return labels, cells
}

// latencyPanel is the round-trip latency of every cell that measured it:
// a bar per measured statistic (mean, p50, p90, p99) with its 95 % CI and
// the repeats as dots; nil when no cell measured latency. Quantiles read
// from a histogram are the upper edges of their bins, and their legend
// says so ("p99 ≤").
func latencyPanel(groups []results.CellGroup, width vg.Length) (*panel, error) {
	var keys []string
	for _, k := range latencyKeys {
		if measured(k, groups) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	top := 0.0
	for _, k := range keys {
		m, _ := results.MetricByKey(k)
		top = math.Max(top, topRecorded(m, groups))
	}
	m0, _ := results.MetricByKey(keys[0])
	us := scaleFor(m0, top)
	labels, cells := cellLabels(groups)
	binned := quantileNote(groups) != ""
	var names []string
	var vals, los, his [][]float64
	var noisy [][]bool
	var reps [][][]float64
	for _, k := range keys {
		m, _ := results.MetricByKey(k)
		se := series{groups: cells}
		st := seriesStats(m, se, us.factor)
		name := metricTitle(m)[len("latency "):]
		if binned && k != results.MetricLatencyMean {
			name += " ≤ (bin edge)"
		}
		names = append(names, name)
		vals, los, his = append(vals, st.mean), append(los, st.lo), append(his, st.hi)
		noisy, reps = append(noisy, st.noisy), append(reps, st.reps)
	}
	bw := barWidth(width, names, len(labels), len(keys))
	title := "round-trip latency (mean, 95% CI; dots: the repeats)"
	if binned {
		title += "\np50/p90/p99 ≤: upper edges of histogram bins"
	}
	p, err := barPlot(title, us.unit, labels, names, vals, los, his, noisy, bw)
	if err != nil {
		return nil, err
	}
	addStrips(p, reps, bw)
	small(p)
	p.legendRight = true
	p.Y.Max = top * us.factor * 1.08
	return p, nil
}

// histogram is a run's round-trip histogram (bench.LatencySample.Histogram:
// iperf 2's bounceback "BB8(f)-PDF" line), nil when it holds none.
func histogram(r results.Record) *bench.Histogram {
	if r.Metrics.Latency == nil || r.Metrics.Latency.ResolutionUs == 0 {
		return nil
	}
	if l := sampleOf(r, r.Metrics.Latency.Histogram != nil).Latency; l != nil {
		return l.Histogram
	}
	return nil
}

// cdfPoints is the CDF of the pooled histograms of runs: at each bin's
// upper edge, the fraction of round trips at most that; nil when no run
// recorded a histogram.
func cdfPoints(runs []results.Record) plotter.XYs {
	counts := map[float64]int64{}
	var total int64
	for _, r := range runs {
		h := histogram(r)
		if h == nil {
			continue
		}
		for b, n := range h.Counts {
			counts[float64(b)*h.WidthUs] += n
			total += n
		}
	}
	if total == 0 {
		return nil
	}
	edges := make([]float64, 0, len(counts))
	for e := range counts {
		edges = append(edges, e)
	}
	slices.Sort(edges)
	var pts plotter.XYs
	var cum int64
	for _, e := range edges {
		cum += counts[e]
		pts = append(pts, plotter.XY{X: e, Y: float64(cum) / float64(total)})
	}
	return pts
}

// newCDFPanel is an empty CDF panel: log x axis (the tail is many bins
// long), the legend beside it.
func newCDFPanel(title string) *panel {
	p := newPanel()
	p.Title.Text = title + "\na point: the fraction of round trips ≤ a bin's upper edge"
	small(p)
	p.X.Label.Text = "round trip ≤ x (µs)"
	p.Y.Label.Text = "fraction ≤ x"
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.legendRight = true
	return p
}

// addCDFs adds one line per named CDF (nil ones skipped) and starts the
// y axis below the lowest point, rounded down to a tenth: most round
// trips fall into the first bin, and the tail is the story. It returns
// how many lines it added.
func addCDFs(p *panel, names []string, cdfs []plotter.XYs) (int, error) {
	lines, lowest := 0, 1.0
	for i, pts := range cdfs {
		if pts == nil {
			continue
		}
		lowest = math.Min(lowest, pts[0].Y)
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return 0, err
		}
		c := palette[lines%len(palette)]
		l.Color, sc.Color, sc.Radius = c, c, vg.Points(1.5)
		p.add(l, sc)
		p.Legend.Add(names[i], l)
		lines++
	}
	p.Y.Min = math.Max(0, math.Floor(lowest*10)/10-0.1)
	return lines, nil
}

// cdfPanel is the distribution of round trips of every cell whose runs
// recorded a histogram (cdfPoints, the repeats pooled); nil when no run
// recorded one.
func cdfPanel(groups []results.CellGroup) (*panel, error) {
	labels, cells := cellLabels(groups)
	p := newCDFPanel("round-trip latency distribution (repeats pooled)")
	var names []string
	var cdfs []plotter.XYs
	for i, g := range cells {
		label := strings.ReplaceAll(labels[i], "\n", " ")
		if label == " " {
			label = g.Experiment + "/" + g.Pair
		}
		names, cdfs = append(names, label), append(cdfs, cdfPoints(g.Repeats))
	}
	if n, err := addCDFs(p, names, cdfs); err != nil || n == 0 {
		return nil, err
	}
	return p, nil
}

// cellCDFPanel is one cell's round-trip distribution, one line per
// repeat; nil when no repeat recorded a histogram.
func cellCDFPanel(g results.CellGroup) (*panel, error) {
	p := newCDFPanel(fmt.Sprintf("%s/%s %s: round-trip latency distribution", g.Experiment, g.Pair, g.CellKey))
	var names []string
	var cdfs []plotter.XYs
	for _, r := range g.Repeats {
		names, cdfs = append(names, fmt.Sprintf("repeat %d", r.Repeat)), append(cdfs, cdfPoints([]results.Record{r}))
	}
	if n, err := addCDFs(p, names, cdfs); err != nil || n == 0 {
		return nil, err
	}
	return p, nil
}
