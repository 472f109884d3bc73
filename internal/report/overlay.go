package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/internal/results"
)

// RunReport is one run of a several-run HTML report (RenderRunsHTML):
// its facts, its cells and the options of its own section (records,
// checked expectations).
type RunReport struct {
	Info    results.RunInfo
	Groups  []results.CellGroup
	Options Options
}

// overlayKey names a cell across runs.
type overlayKey struct{ experiment, pair, cell string }

// overlayCells are the cells present in any run, in first-seen order,
// and for each run its group of each cell (absent: the run lacks it).
func overlayCells(runs []RunReport) ([]overlayKey, []map[overlayKey]results.CellGroup) {
	var keys []overlayKey
	seen := map[overlayKey]bool{}
	byRun := make([]map[overlayKey]results.CellGroup, len(runs))
	for i, r := range runs {
		byRun[i] = map[overlayKey]results.CellGroup{}
		for _, g := range r.Groups {
			k := overlayKey{g.Experiment, g.Pair, g.CellKey}
			byRun[i][k] = g
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	return keys, byRun
}

// overlayMetric is one metric's overlay: its plot and its table, a row
// per cell and a column per run.
type overlayMetric struct {
	Key, Title string
	Plot       template.HTML
	Rows       []overlayRow
}

type overlayRow struct {
	Experiment, Pair, Cell string
	Values                 []overlayValue
}

// overlayValue is one run's value of a cell: "mean ± CI half-width" in
// the table's unit, or "not in RUN" (Missing).
type overlayValue struct {
	Text    string
	Missing bool
}

// overlayRun is a run's legend entry and its own report page.
type overlayRun struct {
	ID, Lab, Status, Started string
	Color                    template.CSS
	Page                     string // the run's HTML report, shown in an iframe's srcdoc
}

// RenderRunsHTML writes one self-contained page of two or more runs: first
// an overlay, per metric the runs measured, of every cell present in any
// run — each run's mean and 95 % CI side by side, one colour per run, a
// cell a run lacks marked "not in RUN" — then each run's own HTML report
// (as Render's html format writes it) in a collapsed section.
func RenderRunsHTML(w io.Writer, runs []RunReport) error {
	if len(runs) < 2 {
		return fmt.Errorf("several-run report: %d run(s), want two or more", len(runs))
	}
	keys, byRun := overlayCells(runs)
	var all []results.CellGroup
	var ids []string
	for _, r := range runs {
		all = append(all, r.Groups...)
		ids = append(ids, r.Info.ID)
	}
	d := struct {
		IDs     []string
		Runs    []overlayRun
		Metrics []overlayMetric
		CDFs    []template.HTML
	}{IDs: ids}
	for i, r := range runs {
		var page bytes.Buffer
		if err := renderHTML(&page, r.Info, r.Groups, r.Options); err != nil {
			return fmt.Errorf("run %s: %w", r.Info.ID, err)
		}
		started := ""
		if !r.Info.Started.IsZero() {
			started = r.Info.Started.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		d.Runs = append(d.Runs, overlayRun{ID: r.Info.ID, Lab: r.Info.Lab, Status: string(r.Info.Status), Started: started,
			Color: cssColor(palette[i%len(palette)]), Page: page.String()})
	}
	if len(keys) > 0 {
		for _, m := range results.Measured(all) {
			if m.Key == results.MetricRetransmits && !measured(m.Key, all) {
				continue // every run records 0 retransmits for UDP and request/response
			}
			om, err := overlayOf(m, keys, byRun, ids, all)
			if err != nil {
				return err
			}
			d.Metrics = append(d.Metrics, om)
		}
	}
	cdfs, err := overlayCDFs(keys, byRun, ids)
	if err != nil {
		return err
	}
	d.CDFs = cdfs
	return overlayTmpl.Execute(w, d)
}

// overlayOf is one metric's overlay: the plot (overlayPanel, "not in
// RUN" above a cell's missing bars) and the table.
func overlayOf(m results.Metric, keys []overlayKey, byRun []map[overlayKey]results.CellGroup, ids []string, all []results.CellGroup) (overlayMetric, error) {
	us := columnScale(m, all)
	om := overlayMetric{Key: m.Key, Title: columnLabel(m, us)}
	cats := make([]string, len(keys))
	sums := make([][]results.Summary, len(ids))
	labels := verdictLabels{texts: make([]string, len(keys)), colors: make([]color.Color, len(keys))}
	for c, k := range keys {
		cats[c] = k.experiment + "/" + k.pair + "\n" + strings.ReplaceAll(k.cell, ",", "\n")
		row := overlayRow{Experiment: k.experiment, Pair: k.pair, Cell: strings.ReplaceAll(k.cell, ",", " ")}
		var missing []string
		for i, id := range ids {
			g, ok := byRun[i][k]
			s := g.Metric(m.Key)
			sums[i] = append(sums[i], s)
			if !ok {
				missing = append(missing, id)
				row.Values = append(row.Values, overlayValue{Text: "not in " + id, Missing: true})
				continue
			}
			row.Values = append(row.Values, overlayValue{Text: overlayText(m, s, us)})
		}
		if len(missing) > 0 { // stacked, narrower than a cell's bars
			labels.texts[c] = "not in\n" + strings.Join(missing, "\n")
		}
		labels.colors[c] = color.Gray{Y: 80}
		om.Rows = append(om.Rows, row)
	}
	title := fmt.Sprintf("%s per run (mean, 95%% CI)", metricTitle(m))
	p, highs, err := overlayPanel(title, m, cats, ids, sums)
	if err != nil {
		return om, err
	}
	labels.ys = highs
	p.add(labels)
	if p.Y.Max <= 0 {
		p.Y.Max = 1 // nothing measured: an empty axis rather than a degenerate one
	}
	svg, err := inlineSVG(func(w io.Writer) error { return writeSizedSVG(w, p, compareWidth(len(keys)), 4.5*vg.Inch) })
	om.Plot = svg
	return om, err
}

// overlayText is a run's value of a cell in the overlay's table: mean ±
// the 95 % CI's half-width in the column's unit (a small rate in a Gb/s
// column in Mb/s, as columnText), "-" when the run did not measure it.
func overlayText(m results.Metric, s results.Summary, us unitScale) string {
	if m.Key == results.MetricThroughput {
		return columnText(m, s, us)
	}
	return rate(s, us.factor, columnDecimals(m, us))
}

// cssColor is a palette colour as CSS ("#0072b2").
func cssColor(c color.Color) template.CSS {
	r, g, b, _ := c.RGBA()
	return template.CSS(fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8))
}

var overlayTmpl = template.Must(template.New("runs").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>lab report: runs {{range $i, $id := .IDs}}{{if $i}}, {{end}}{{$id}}{{end}}</title>
<style>body { font-family: 'Liberation Sans', Arial, Helvetica, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }
th { background: #f2f2f2; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.missing { color: #57606a; font-style: italic; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle; margin-right: 0.3em; }
.plot svg { max-width: 100%; height: auto; }
details.run { margin: 0.6em 0; border-left: 3px solid #0072b2; padding-left: 0.8em; }
details.run summary { cursor: pointer; font-weight: bold; }
details.run iframe { width: 100%; height: 85vh; border: 1px solid #ccc; }</style></head>
<body data-ready="1">
<h1>lab report: {{len .Runs}} runs overlaid</h1>
<ul id="runs">{{range .Runs}}<li data-run="{{.ID}}"><span class="swatch" style="background: {{.Color}}"></span><b>{{.ID}}</b> — lab {{.Lab}}, status {{.Status}}{{if .Started}}, started {{.Started}}{{end}}</li>
{{end}}</ul>
<h2 id="overlay">Runs overlaid</h2>
<p>Per cell (experiment, pair, matrix cell) present in any run, each run's mean (bar) and 95 % confidence interval (whisker, Student's t), one colour per run; a cell a run lacks says "not in RUN". Each run's own report follows.</p>
{{range .Metrics}}<h3>{{.Title}}</h3>
<div class="plot overlay" data-key="{{.Key}}">{{.Plot}}</div>
<table class="overlay" data-key="{{.Key}}"><thead><tr><th>experiment</th><th>pair</th><th>cell</th>{{range $.IDs}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Experiment}}</td><td>{{.Pair}}</td><td>{{.Cell}}</td>{{range .Values}}<td class="num{{if .Missing}} missing{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{if .CDFs}}<h3 id="latency-cdfs">round-trip latency distribution per run</h3>
{{range .CDFs}}<div class="plot overlay-cdf">{{.}}</div>
{{end}}{{end}}
<h2 id="each-run">Each run</h2>
{{range .Runs}}<details class="run" id="run-{{.ID}}"><summary>run {{.ID}} (lab {{.Lab}}, {{.Status}})</summary>
<iframe title="report of run {{.ID}}" srcdoc="{{.Page}}"></iframe>
</details>
{{end}}</body></html>
`))

// RenderRuns writes the report of one run in format (Render), or of
// several as one HTML page (RenderRunsHTML); several runs in any other
// format are refused, naming it.
func RenderRuns(w io.Writer, format string, runs []RunReport) error {
	switch {
	case len(runs) == 1:
		return Render(w, format, runs[0].Info, runs[0].Groups, runs[0].Options)
	case format != "html":
		return fmt.Errorf("several runs (%d) with -format %s: only -format html overlays runs; use lab compare A B for two", len(runs), format)
	}
	return RenderRunsHTML(w, runs)
}
