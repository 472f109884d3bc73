package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Check is check's view (operation.CheckView) on W: a table, or with
// JSON one line.
type Check struct {
	W           io.Writer
	JSON, Color bool
}

// NoExpectations says that lab has nothing to check.
func (v Check) NoExpectations(lab string) {
	fmt.Fprintf(v.W, "Lab %q has no expect blocks: nothing to check.\n", lab)
}

// Checks shows the verdicts on run runID.
func (v Check) Checks(runID string, outs []verdicts.Outcome) error {
	return Checks(v.W, runID, outs, v.JSON, v.Color)
}

// Validate is validate's view (operation.ValidateView): diagnostics on
// Stderr and a line on Stdout, or with JSON the outcome and the
// diagnostics, with their source ranges, as JSON on Stdout (for editors).
type Validate struct {
	Stdout, Stderr io.Writer
	JSON           bool
	// Dir is the lab directory the JSON's file names are relative to.
	Dir string
	// Write writes diagnostics for people (the terminal's width, colour).
	Write func(lab *spec.Lab, diags hcl.Diagnostics)
}

// Diagnostics shows what decoding said.
func (v Validate) Diagnostics(lab *spec.Lab, diags hcl.Diagnostics) error {
	if v.JSON {
		return DiagnosticsJSON(v.Stdout, v.Dir, lab, diags)
	}
	if len(diags) > 0 {
		v.Write(lab, diags)
	}
	return nil
}

// Valid says that the lab is valid (nothing more with JSON).
func (v Validate) Valid(lab *spec.Lab, cells int, unknown []string) {
	if v.JSON {
		return
	}
	fmt.Fprintf(v.Stdout, "Success! Lab %q is valid: %d experiment(s), %d pair(s), %d cell(s).\n",
		lab.Name, len(lab.Experiments), len(lab.Pairs), cells)
	if len(unknown) > 0 {
		fmt.Fprintf(v.Stdout, "Variables without a value were taken as unknown (%s): what reads them is checked by plan, which needs their values.\n",
			strings.Join(unknown, ", "))
	}
}
