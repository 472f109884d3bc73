package main

import (
	"encoding/json"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
)

// runShow is `lab show [-json] [PLANFILE | RUN]`: one operation call
// (operation.Operation.Show) shows a saved plan, or a run (an id, latest
// or previous; default the latest) with its table, through show's view.
func runShow(g *globals, args []string) error {
	fs := newFlags(g, "show", "show [-json] [PLANFILE | RUN]")
	asJSON := fs.Bool("json", false, "print the plan, or the run and its records, as JSON")
	if err := parseFlags(fs, args, optionalArg("a saved plan file or a run id")); err != nil {
		return err
	}
	return g.op().Show(fs.Arg(0), view.Show{W: g.stdout, JSON: *asJSON, Color: useColor(g, g.stdout)})
}

// writeJSON prints v as indented JSON.
func writeJSON(g *globals, v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
