package main

import (
	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/verdicts"
)

// runEffects is `lab effects [-json] [-metric M] [RUN]`: each matrix
// factor's main effect and each two-way interaction on the metrics of a
// run (an id, latest or previous; default the latest), from a linear
// model fitted by least squares.
func runEffects(g *globals, args []string) error {
	fs := newFlags(g, "effects", "effects [-json] [-metric M] [RUN]")
	asJSON := fs.Bool("json", false, "print the fitted models as JSON (values in the records' units: bit/s, %, µs)")
	metric := fs.String("metric", "", "estimate only the metric `M` (throughput_bps, retransmits, server_cpu_pct, …; default: every metric the runs measured)")
	if err := parseFlags(fs, args, optionalArg("a run id")); err != nil {
		return err
	}
	info, effs, err := g.op().Effects(fs.Arg(0), *metric)
	if err != nil {
		return err
	}
	if *asJSON {
		if effs == nil {
			effs = []verdicts.FactorEffects{}
		}
		return writeJSON(g, map[string]any{"run": info.ID, "lab": info.Lab, "effects": effs})
	}
	view.Effects(g.stdout, info, effs)
	return nil
}
