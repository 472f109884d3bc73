package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
)

// Report is report's view (operation.ReportView): the report on Stdout,
// or written whole to the file Out (then a line on Stderr says where).
type Report struct {
	Stdout, Stderr io.Writer
	Out            string
}

// Report renders runs in format.
func (v Report) Report(format string, ids []string, runs []report.RunReport) error {
	o := atomicfile.NewOutput(v.Out, v.Stdout)
	if err := report.RenderRuns(o, format, runs); err != nil {
		return err
	}
	where, err := o.Commit()
	if err != nil || where == "" {
		return err
	}
	fmt.Fprintf(v.Stderr, "Wrote the %s report of run %s to %s.\n", format, strings.Join(ids, ", run "), where)
	return nil
}
