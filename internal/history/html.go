package history

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"strings"
)

// page is the template of the history page: one self-contained file
// (inline CSS, script and SVG; nothing is fetched over the network).
//
//go:embed html.tmpl
var page string

var pageTmpl = template.Must(template.New("history").Parse(page))

// htmlPlot is one series' section.
type htmlPlot struct {
	ID, Title string
	Summary   string
	SVG       template.HTML
}

// RenderHTML writes one page with a trend plot per series: each apply a
// point linking to its run's report (report-RUN.html beside the page:
// writeReports), each change point a
// dashed line labelled with its magnitude, each level between change
// points a line at its mean.
func RenderHTML(w io.Writer, series []Series) error {
	var plots []htmlPlot
	for i, s := range series {
		var text strings.Builder
		for _, c := range s.ChangePoints {
			writeChange(&text, s, c)
		}
		plots = append(plots, htmlPlot{ID: fmt.Sprintf("s%d", i),
			Title:   fmt.Sprintf("%s/%s %s — %s", s.Experiment, s.Pair, s.Cell, s.Metric),
			Summary: strings.TrimSpace(text.String()), SVG: trendSVG(s)})
	}
	data, err := json.Marshal(series)
	if err != nil {
		return err
	}
	return pageTmpl.Execute(w, struct {
		Plots []htmlPlot
		Data  template.JS
	}{plots, template.JS(data)})
}

// plot geometry, in SVG user units.
const (
	plotW, plotH                       = 760.0, 260.0
	marginL, marginR, marginT, marginB = 90.0, 20.0, 20.0, 40.0
)

// trendSVG draws s.
func trendSVG(s Series) template.HTML {
	n := len(s.Applies)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range s.Applies {
		lo, hi = math.Min(lo, a.Value), math.Max(hi, a.Value)
	}
	if pad := (hi - lo) * 0.08; pad > 0 {
		lo, hi = lo-pad, hi+pad
	} else {
		lo, hi = lo-1, hi+1
	}
	x := func(i float64) float64 { return marginL + (plotW-marginL-marginR)*(i+0.5)/float64(n) }
	y := func(v float64) float64 { return marginT + (plotH-marginT-marginB)*(hi-v)/(hi-lo) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" data-n="%d">`, plotW, plotH, plotW, plotH, n)
	fmt.Fprintf(&b, `<line class="axis" x1="%g" y1="%g" x2="%g" y2="%g"/>`, marginL, plotH-marginB, plotW-marginR, plotH-marginB)
	for _, v := range []float64{lo, (lo + hi) / 2, hi} {
		fmt.Fprintf(&b, `<text class="tick" x="%g" y="%.1f" text-anchor="end">%s</text>`, marginL-6, y(v)+4, html.EscapeString(display(s.Metric, v)))
	}
	fmt.Fprintf(&b, `<text class="tick" x="%g" y="%g" text-anchor="middle">applies, oldest to newest (%d)</text>`, (marginL+plotW-marginR)/2, plotH-10, n)
	start := 0
	for _, c := range append(s.ChangePoints, Change{Index: n}) { // the levels' means
		mean := 0.0
		for _, a := range s.Applies[start:c.Index] {
			mean += a.Value / float64(c.Index-start)
		}
		fmt.Fprintf(&b, `<line class="level" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`, x(float64(start)-0.4), y(mean), x(float64(c.Index)-0.6), y(mean))
		start = c.Index
	}
	for _, c := range s.ChangePoints {
		cx := x(float64(c.Index) - 0.5)
		label := fmt.Sprintf("p = %.2g", c.Stats.P)
		if c.Relative != nil {
			label = percent(*c.Relative) + ", " + label
		}
		fmt.Fprintf(&b, `<g class="change" data-index="%d"><line x1="%.1f" y1="%g" x2="%.1f" y2="%g"/><text x="%.1f" y="%g">%s</text></g>`,
			c.Index, cx, marginT, cx, plotH-marginB, cx+4, marginT+10, html.EscapeString(label))
	}
	var pts []string
	for i, a := range s.Applies {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(float64(i)), y(a.Value)))
	}
	fmt.Fprintf(&b, `<polyline class="trend" points="%s"/>`, strings.Join(pts, " "))
	for i, a := range s.Applies {
		id := html.EscapeString(a.RunID)
		fmt.Fprintf(&b, `<a href="%s"><circle cx="%.1f" cy="%.1f" r="4" data-run="%s" data-value="%s"><title>%s: %s</title></circle></a>`,
			html.EscapeString(reportFile(a.RunID)), x(float64(i)), y(a.Value), id, jsonNumber(a.Value), id, html.EscapeString(display(s.Metric, a.Value)))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// jsonNumber is v as encoding/json writes it, for the page's check.
func jsonNumber(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
