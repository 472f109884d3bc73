package report

import (
	"html/template"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lab-bench/lab/internal/results"
)

// overlayCDFPanels are, for each cell whose runs recorded a latency
// histogram, its round-trip distribution in each run (the run's repeats
// pooled, cdfPoints), one line per run in the run's colour: the
// several-run page overlaid means only, so a run's heavier tail under the
// same mean went unseen (issue 35).
func overlayCDFPanels(keys []overlayKey, byRun []map[overlayKey]results.CellGroup, ids []string) ([]*panel, error) {
	var out []*panel
	for _, k := range keys {
		p := newCDFPanel(k.experiment + "/" + k.pair + " " + k.cell + ": round trips per run")
		lines, lowest := 0, 1.0
		for i, id := range ids {
			g, ok := byRun[i][k]
			if !ok {
				continue
			}
			pts := cdfPoints(g.Repeats)
			if pts == nil {
				continue
			}
			lowest = math.Min(lowest, pts[0].Y)
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			c := palette[i%len(palette)] // the run's swatch
			l.Color, sc.Color, sc.Radius = c, c, vg.Points(1.5)
			p.add(l, sc)
			p.Legend.Add(id, l)
			lines++
		}
		if lines == 0 {
			continue
		}
		p.Y.Min = math.Max(0, math.Floor(lowest*10)/10-0.1)
		out = append(out, p)
	}
	return out, nil
}

// overlayCDFs are overlayCDFPanels as inline SVGs.
func overlayCDFs(keys []overlayKey, byRun []map[overlayKey]results.CellGroup, ids []string) ([]template.HTML, error) {
	ps, err := overlayCDFPanels(keys, byRun, ids)
	if err != nil {
		return nil, err
	}
	var out []template.HTML
	for _, p := range ps {
		svg, err := inlineSVG(func(w io.Writer) error { return writeSizedSVG(w, p, panelW, panelH) })
		if err != nil {
			return nil, err
		}
		out = append(out, svg)
	}
	return out, nil
}
