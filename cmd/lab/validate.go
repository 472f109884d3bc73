package main

import (
	"fmt"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
)

// runValidate is `lab validate`: decode and check the spec, as Terraform
// does, with no variable values and no credentials needed. A required
// variable without a value is an unknown value of its type; providers are
// configured offline; an error about a value not known yet is no error.
func runValidate(g *globals, args []string) error {
	fs := newFlags(g, "validate", "validate [-json] [-var k=v] [-var-file F]")
	var v varFlags
	v.register(fs)
	asJSON := fs.Bool("json", false, "print the outcome and the diagnostics, with their source ranges, as JSON (for editors)")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	lab, diags := g.op().ValidateLab(v.opVars())
	if *asJSON {
		if err := view.DiagnosticsJSON(g.stdout, g.dir, lab, diags); err != nil {
			return err
		}
		if diags.HasErrors() {
			return reported{exitError}
		}
		return nil
	}
	if len(diags) > 0 {
		_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
	}
	if diags.HasErrors() {
		return reported{exitError}
	}
	fmt.Fprintf(g.stdout, "Success! Lab %q is valid: %d experiment(s), %d pair(s), %d cell(s).\n",
		lab.Name, len(lab.Experiments), len(lab.Pairs), operation.CountCells(lab))
	if names := operation.UnknownVariables(lab); len(names) > 0 {
		fmt.Fprintf(g.stdout, "Variables without a value were taken as unknown (%s): what reads them is checked by plan, which needs their values.\n",
			strings.Join(names, ", "))
	}
	return nil
}
