package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
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
	writeRunHeader(g, info, recs)
	if len(recs) == 0 {
		return nil
	}
	fmt.Fprintln(g.stdout)
	return report.Render(g.stdout, "table", info, results.Group(recs), report.Options{Color: useColor(g, g.stdout)})
}

// writeRunHeader prints a run's description, one field per line.
func writeRunHeader(g *globals, info results.RunInfo, recs []results.Record) {
	status := info.Status
	if info.Note != "" {
		status += " (" + info.Note + ")"
	}
	fmt.Fprintf(g.stdout, "Run %s of lab %q: %s\n", info.ID, info.Lab, status)
	fmt.Fprintf(g.stdout, "  started   %s", info.Started.Local().Format(time.DateTime))
	if !info.Ended.IsZero() {
		fmt.Fprintf(g.stdout, ", ended %s (%s)", info.Ended.Local().Format(time.DateTime), info.Ended.Sub(info.Started).Round(time.Second))
	}
	fmt.Fprintln(g.stdout)
	fmt.Fprintf(g.stdout, "  host      %s, lab %s, spec %s\n", info.Host, info.LabVersion, operation.ShortHash(info.SpecHash))
	failed := 0
	applies := map[string]int{}
	for _, r := range recs {
		if r.Error != "" {
			failed++
		}
		applies[r.Provenance.Apply]++
	}
	fmt.Fprintf(g.stdout, "  records   %d (%d failed)\n", len(recs), failed)
	if len(applies) > 1 {
		var parts []string
		for _, a := range slices.Sorted(maps.Keys(applies)) {
			name := a
			if a == "" {
				name = "unnamed"
			}
			parts = append(parts, fmt.Sprintf("%s: %d", name, applies[a]))
		}
		fmt.Fprintf(g.stdout, "  applies   %s (resumed)\n", strings.Join(parts, ", "))
	}
}

// writeJSON prints v as indented JSON.
func writeJSON(g *globals, v any) error {
	enc := json.NewEncoder(g.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
