package history

import (
	"context"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/results"
)

// ArchiveSource reads the points from an archive (internal/archive): one
// point per repeat, which Build averages per run as ResultsSource does.
type ArchiveSource struct{ Store *archive.Store }

// Points implements Source.
func (s ArchiveSource) Points(ctx context.Context, f Filter) ([]Point, error) {
	ps, err := s.Store.Points(ctx, archive.Filter{Lab: f.Lab, Experiment: f.Experiment, Cell: f.Cell, Metric: f.Metric, Since: f.Since})
	if err != nil {
		return nil, err
	}
	out := make([]Point, len(ps))
	for i, p := range ps {
		out[i] = Point{RunID: p.RunID, Applied: p.Applied, Lab: p.Lab, Experiment: p.Experiment, Pair: p.Pair,
			Cell: p.Cell, Metric: p.Metric, Value: p.Value, LabVersion: p.LabVersion, SpecHash: p.SpecHash,
			Kernel: p.Kernel, Host: p.Host}
	}
	return out, nil
}

// openArchive opens the archive at location for the lab of the newest
// run in results/ (every lab's series when there is none); close closes it.
func openArchive(ctx context.Context, location, resultsDir string) (src Source, lab string, close func() error, err error) {
	st, err := archive.Open(ctx, location)
	if err != nil {
		return nil, "", nil, err
	}
	if runs, err := (results.Store{Dir: resultsDir, ReadOnly: true}).Runs(); err == nil && len(runs) > 0 {
		lab = runs[len(runs)-1].Lab
	}
	return ArchiveSource{Store: st}, lab, st.Close, nil
}
