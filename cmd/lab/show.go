package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// runShow is `lab show [-json] [PLANFILE | RUN]`: a saved plan, or a run
// (an id, latest or previous; default the latest) with its table.
func runShow(g *globals, args []string) error {
	fs := newFlags(g, "show", "show [-json] [PLANFILE | RUN]")
	asJSON := fs.Bool("json", false, "print the plan, or the run and its records, as JSON")
	if err := parseFlags(fs, args, optionalArg("a saved plan file or a run id")); err != nil {
		return err
	}
	arg := fs.Arg(0)
	if arg != "" && isFile(arg) {
		p, err := plan.Load(arg)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(g, p)
		}
		return p.Render(g.stdout, plan.RenderOptions{Color: useColor(g, g.stdout)})
	}
	return showRun(g, arg, *asJSON)
}

// isFile reports whether path names a regular file (a saved plan), as
// given or relative to the lab directory.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// runJSON is `lab show -json RUN`.
type runJSON struct {
	Run     results.RunInfo  `json:"run"`
	Records []results.Record `json:"records"`
}

// showRun shows a run: what it is, which applies wrote it, and its table.
func showRun(g *globals, arg string, asJSON bool) error {
	rs := g.op().ResultStore()
	if arg == "" {
		arg = results.AliasLatest
	}
	id, err := rs.Resolve(arg)
	if err != nil {
		if _, statErr := os.Stat(filepath.Join(g.dir, arg)); statErr == nil {
			return fmt.Errorf("%s is neither a saved plan file nor a run id (paths are relative to where lab was started)", arg)
		}
		return err
	}
	info, recs, err := rs.Load(id)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(g, runJSON{Run: info, Records: recs})
	}
	view.RunHeader(g.stdout, info, recs)
	view.RunCommands(g.stdout, recs)
	view.RunCounters(g.stdout, recs)
	view.RunOverlaps(g.stdout, recs)
	view.RunEnvironment(g.stdout, recs)
	if len(recs) == 0 {
		return nil
	}
	fmt.Fprintln(g.stdout)
	return report.Render(g.stdout, "table", info, results.Group(recs), report.Options{Color: useColor(g, g.stdout)})
}

// writeJSON prints v as indented JSON.
func writeJSON(g *globals, v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
