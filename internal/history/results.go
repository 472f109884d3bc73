package history

import (
	"context"

	"github.com/lab-bench/lab/internal/results"
)

// ResultsSource reads the points from a results/ directory: each run's
// cells (results.Group: successful, non-warm-up repeats), one point per
// cell and measured metric, the mean over the run's repeats.
type ResultsSource struct{ Store results.Store }

// Points implements Source.
func (s ResultsSource) Points(ctx context.Context, f Filter) ([]Point, error) {
	runs, err := s.Store.Runs()
	if err != nil {
		return nil, err
	}
	var out []Point
	for _, info := range runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !f.Since.IsZero() && info.Started.Before(f.Since) || f.Lab != "" && info.Lab != f.Lab {
			continue
		}
		_, recs, err := s.Store.Load(info.ID)
		if err != nil {
			return nil, err
		}
		for _, g := range results.Group(recs) {
			if f.Experiment != "" && g.Experiment != f.Experiment || f.Cell != "" && g.CellKey != f.Cell || len(g.Repeats) == 0 {
				continue
			}
			out = append(out, points(info, g, f.Metric)...)
		}
	}
	return out, nil
}

// points are g's metrics (only metric, when set) as points of run info.
func points(info results.RunInfo, g results.CellGroup, metric string) []Point {
	var out []Point
	kernel := g.Repeats[0].Provenance.ServerKernel // the server's, as the archive keeps it
	for _, m := range results.Metrics {
		s := g.Metric(m.Key)
		if s.N == 0 || metric != "" && m.Key != metric {
			continue
		}
		out = append(out, Point{RunID: info.ID, Applied: info.Started, Lab: info.Lab, Experiment: g.Experiment,
			Pair: g.Pair, Cell: g.CellKey, Metric: m.Key, Value: s.Mean, LabVersion: info.LabVersion,
			SpecHash: info.SpecHash, Kernel: kernel, Host: info.Host})
	}
	return out
}
