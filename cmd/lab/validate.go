package main

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/spec"
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
	return g.op().Validate(v.opVars(), view.Validate{Stdout: g.stdout, Stderr: g.stderr, JSON: *asJSON, Dir: g.dir,
		Write: func(lab *spec.Lab, diags hcl.Diagnostics) {
			_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
		}})
}
