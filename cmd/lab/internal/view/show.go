package view

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// Show is show's view (operation.ShowView) on W: a saved plan or a run
// for people, or with JSON as indented JSON.
type Show struct {
	W           io.Writer
	JSON, Color bool
}

// RunJSON is `lab show -json RUN`: the run and its records.
type RunJSON struct {
	Run     results.RunInfo  `json:"run"`
	Records []results.Record `json:"records"`
}

// Plan shows a saved plan.
func (v Show) Plan(p *plan.Plan) error {
	if v.JSON {
		return v.writeJSON(p)
	}
	return p.Render(v.W, plan.RenderOptions{Color: v.Color})
}

// Run shows a run: what it is, which applies wrote it, and its table.
func (v Show) Run(info results.RunInfo, recs []results.Record) error {
	if v.JSON {
		return v.writeJSON(RunJSON{Run: info, Records: recs})
	}
	RunHeader(v.W, info, recs)
	RunCommands(v.W, recs)
	RunCounters(v.W, recs)
	RunOverlaps(v.W, recs)
	RunEnvironment(v.W, recs)
	if len(recs) == 0 {
		return nil
	}
	fmt.Fprintln(v.W)
	return report.Render(v.W, "table", info, results.Group(recs), report.Options{Color: v.Color})
}

// writeJSON prints x as indented JSON.
func (v Show) writeJSON(x any) error {
	enc := json.NewEncoder(v.W)
	enc.SetIndent("", "  ")
	return enc.Encode(x)
}
