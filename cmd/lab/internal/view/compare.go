package view

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Compare is compare's view (operation.CompareView): the verdicts as
// JSON or in Format, on Stdout or written whole to the file Out (then a
// line on Stderr says where).
type Compare struct {
	Stdout, Stderr io.Writer
	Out, Format    string
	JSON           bool
	// Color colours a table on Stdout (never in a file).
	Color bool
	// Threshold and Adjust are the comparison's, shown with it.
	Threshold float64
	Adjust    string
}

// Comparison shows the verdicts of run testID over run baseID.
func (v Compare) Comparison(baseID, testID string, ds []verdicts.Delta) error {
	o := atomicfile.NewOutput(v.Out, v.Stdout)
	if v.JSON {
		enc := json.NewEncoder(o)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ds); err != nil {
			return err
		}
	} else if err := report.RenderCompareFormat(o, v.Format, baseID, testID, ds, report.CompareOptions{
		Options: report.Options{Color: !o.ToFile() && v.Color}, Threshold: v.Threshold, Adjust: v.Adjust}); err != nil {
		return err
	}
	if where, err := o.Commit(); err != nil {
		return err
	} else if where != "" {
		fmt.Fprintf(v.Stderr, "Wrote the comparison of run %s with run %s to %s.\n", baseID, testID, where)
	}
	return nil
}
