package report

import (
	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// sampleOf is r's parsed sample: the record's own when stored says it
// carries what the caller reads, else the sample r's tool parses from the
// record's raw output today (records written before the sample carried
// receiver intervals and histograms hold them in the raw output only).
// The tool is found through the registry (bench.NewRunner), so a report
// needs no tool's package; the record's own sample when the tool is
// unknown or its raw output no longer parses.
func sampleOf(r results.Record, stored bool) bench.Sample {
	if stored {
		return r.Metrics
	}
	run, err := bench.NewRunner(r.Intent.Bench.Tool)
	if err != nil {
		return r.Metrics
	}
	s, err := run.Parse(r.Raw)
	if err != nil {
		return r.Metrics
	}
	return s
}
