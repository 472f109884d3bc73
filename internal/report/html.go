package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// htmlPage is the template of the HTML report: one self-contained file
// (inline CSS, script and SVG; nothing is fetched over the network).
//
//go:embed html.tmpl
var htmlPage string

var htmlTmpl = template.Must(template.New("report").Parse(htmlPage))

// htmlData is what the template shows.
type htmlData struct {
	Info       results.RunInfo
	Provenance []htmlItem
	Header     []htmlHeader
	Rows       []htmlRow
	Plot       template.HTML // inline SVG of the throughput panel
	CPU        template.HTML // inline SVG of the CPU panel
	// Panels are the inline SVGs of every other metric's panel.
	Panels   []template.HTML
	Outcomes []verdicts.Outcome
	// Effects are the factor-effects sections (verdicts.Effects).
	Effects []htmlEffects
	// ChecksNote says why there are no verdicts ("" when there are).
	ChecksNote string
	// Data is the summary as JSON (the JSON report's groups), for scripts.
	Data template.JS
	// Aggregates are the concurrent cells' sums of flows (aggregateLines).
	Aggregates    []string
	AggregateNote string
}

type htmlItem struct{ Name, Value string }

type htmlHeader struct {
	Label   string
	Key     string // metric key; "" for a dimension or n
	Numeric bool
}

// htmlRow is one cell: its summary cells and its drill-down.
type htmlRow struct {
	ID    string
	Title string // "experiment/pair cell-key"
	Cells []htmlCell
	Note  string
	// Repeats and their metrics (same headers as RepeatHeader).
	RepeatHeader []string
	Repeats      [][]string
	Series       template.HTML // inline SVG time series, or ""
	CDF          template.HTML // inline SVG latency CDF per repeat, or ""
}

// htmlCell is one table cell; Value is the exact number behind Text (the
// JSON report's), for scripts and tests.
type htmlCell struct {
	Text    string
	Key     string
	Value   string
	Numeric bool
	Title   string
}

// renderHTML writes the HTML report.
func renderHTML(w io.Writer, info results.RunInfo, groups []results.CellGroup, opt Options) error {
	d := htmlData{Info: info, Outcomes: opt.Outcomes, ChecksNote: opt.ChecksNote}
	if d.ChecksNote == "" && len(d.Outcomes) == 0 {
		d.ChecksNote = "no expect blocks"
	}
	d.Provenance = provenance(info, groups)
	d.Aggregates, d.AggregateNote = aggregateLines(groups), aggregateHeading
	dims := dimensions(groups)
	metrics := results.Measured(groups)
	d.Header = append(d.Header, htmlHeader{Label: "experiment"}, htmlHeader{Label: "pair"})
	for _, dim := range dims {
		d.Header = append(d.Header, htmlHeader{Label: dim})
	}
	d.Header = append(d.Header, htmlHeader{Label: "n", Numeric: true})
	scales := make([]unitScale, len(metrics))
	for i, m := range metrics {
		scales[i] = columnScale(m, groups)
		d.Header = append(d.Header, htmlHeader{Label: columnLabel(m, scales[i]), Key: m.Key, Numeric: true})
	}
	for i, g := range groups {
		row := htmlRow{ID: "cell-" + strconv.Itoa(i), Note: note(g), Title: g.Experiment + "/" + g.Pair + " " + g.CellKey}
		row.Cells = append(row.Cells, htmlCell{Text: g.Experiment}, htmlCell{Text: g.Pair})
		for _, dim := range dims {
			row.Cells = append(row.Cells, htmlCell{Text: cellValue(g, dim)})
		}
		row.Cells = append(row.Cells, htmlCell{Text: strconv.Itoa(g.N), Key: "n", Value: strconv.Itoa(g.N), Numeric: true})
		for i, m := range metrics {
			s, us := g.Metric(m.Key), scales[i]
			c := htmlCell{Text: columnText(m, s, us), Key: m.Key, Numeric: true}
			if s.N > 0 {
				c.Value = strconv.FormatFloat(s.Mean, 'g', -1, 64)
				if s.Known {
					c.Title = fmt.Sprintf("95%% CI [%s, %s] %s, n = %d", number(s.CI95Low*us.factor, m.Decimals+2),
						number(s.CI95High*us.factor, m.Decimals+2), us.unit, s.N)
				}
			}
			row.Cells = append(row.Cells, c)
		}
		row.RepeatHeader, row.Repeats = htmlRepeats(g, metrics, scales)
		if p, err := timeSeriesPlot(g); err != nil {
			return err
		} else if p != nil {
			svg, err := inlineSVG(func(w io.Writer) error { return writePanelSVG(w, p) })
			if err != nil {
				return err
			}
			row.Series = svg
		}
		if p, err := cellCDFPanel(g); err != nil {
			return err
		} else if p != nil {
			svg, err := inlineSVG(func(w io.Writer) error { return writeSizedSVG(w, p, 6*vg.Inch, 3.2*vg.Inch) })
			if err != nil {
				return err
			}
			row.CDF = svg
		}
		d.Rows = append(d.Rows, row)
	}
	if len(groups) > 0 {
		var err error
		if d.Plot, d.CPU, d.Panels, err = htmlFigures(info, groups); err != nil {
			return err
		}
	}
	effects, err := effectsSections(opt.Records, groups)
	if err != nil {
		return err
	}
	d.Effects = effects
	js, err := json.Marshal(groups) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	d.Data = template.JS(js)
	return htmlTmpl.Execute(w, d)
}

// htmlRepeats are a cell's drill-down table: its header and one line per
// repeat, each metric in its column's unit.
func htmlRepeats(g results.CellGroup, metrics []results.Metric, scales []unitScale) ([]string, [][]string) {
	header := []string{"repeat", "start"}
	for i, m := range metrics {
		header = append(header, columnLabel(m, scales[i]))
	}
	var lines [][]string
	for _, r := range g.Repeats {
		line := []string{strconv.Itoa(r.Repeat), r.Start.UTC().Format("15:04:05")}
		for i, m := range metrics {
			v, ok := m.Value(r)
			if !ok {
				line = append(line, "-")
				continue
			}
			line = append(line, repeatText(m, v, scales[i]))
		}
		lines = append(lines, line)
	}
	return header, lines
}

// provenance lists where the run came from: the run's own facts and the
// distinct values its cells recorded.
func provenance(info results.RunInfo, groups []results.CellGroup) []htmlItem {
	var items []htmlItem
	add := func(name string, values ...string) {
		var vs []string
		vs = appendNew(vs, values...)
		if len(vs) > 0 {
			items = append(items, htmlItem{name, strings.Join(vs, "; ")})
		}
	}
	add("lab version", info.LabVersion)
	add("host", info.Host)
	add("spec hash", info.SpecHash)
	add("lab file hash", info.LabFileHash)
	var kernels, tools, drivers, offloads, rings, locks, commits, cpus, firmware []string
	for _, g := range groups {
		kernels = appendNew(kernels, g.Kernels...)
		tools = appendNew(tools, g.ToolVersions...)
		drivers = appendNew(drivers, g.Drivers...)
		offloads = appendNew(offloads, g.Offloads...)
		rings = appendNew(rings, g.Rings...)
		for _, r := range g.Repeats {
			p := r.Provenance
			locks = appendNew(locks, p.LockDigest)
			if p.GitCommit != "" {
				c := p.GitCommit
				if p.GitDirty {
					c += " (dirty)"
				}
				commits = appendNew(commits, c)
			}
			cpus = appendNew(cpus, p.ServerCPUModel, p.ClientCPUModel)
			firmware = appendNew(firmware, p.ServerFirmware, p.ClientFirmware)
		}
	}
	add("lock digest (.lab.lock.hcl sha256)", locks...)
	add("git commit", commits...)
	add("kernels", kernels...)
	add("CPU models", cpus...)
	add("NIC drivers", drivers...)
	add("NIC firmware", firmware...)
	add("IP version", ipVersions(groups)...)
	add("tools", tools...)
	add("offloads observed", offloads...)
	add("NIC ring sizes observed (current/max)", rings...)
	return items
}
