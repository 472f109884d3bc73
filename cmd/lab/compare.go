package main

import (
	"encoding/json"
	"fmt"

	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
)

// runCompare is `lab compare BASE TEST`: two runs of the lab, cell by cell.
func runCompare(g *globals, args []string) error {
	fs := newFlags(g, "compare", "compare [-json] BASE TEST")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return fmt.Errorf("compare takes two run ids, BASE and TEST (see the results/ directory)")
	}
	rs := results.Store{Dir: resultsDir(g)}
	groups := make([][]results.CellGroup, 2)
	for i, id := range fs.Args() {
		_, recs, err := rs.Load(id)
		if err != nil {
			return err
		}
		groups[i] = results.Group(recs)
	}
	ds := results.Compare(groups[0], groups[1])
	if *asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ds)
	}
	return report.RenderCompare(g.stdout, fs.Arg(0), fs.Arg(1), ds, report.Options{Color: isTerminal(g.stdout)})
}
