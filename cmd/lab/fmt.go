package main

import (
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/lab-bench/lab/internal/operation"
)

// exitUnformatted is fmt -check's status when a file needs formatting
// (Terraform's).
const exitUnformatted = 3

// runFmt is `lab fmt [PATH…]`: one operation call (operation.Operation.Fmt)
// rewrites the lab's .hcl and .labvars files in the canonical style
// (hclwrite.Format), as terraform fmt does.
func runFmt(g *globals, args []string) error {
	fs := newFlags(g, "fmt", "fmt [-check] [-diff] [-recursive] [-list=false] [PATH… | -]")
	var a operation.FmtArgs
	fs.BoolVar(&a.Check, "check", false, fmt.Sprintf("change nothing; exit %d when a file is not formatted", exitUnformatted))
	fs.BoolVar(&a.Diff, "diff", false, "print the changes as a unified diff")
	fs.BoolVar(&a.Recursive, "recursive", false, "also format the files in subdirectories")
	fs.BoolVar(&a.List, "list", true, "print the names of the files that are (or, with -check, would be) changed")
	if err := parseFlags(fs, args, arity{0, 1 << 20, "files or directories"}); err != nil {
		return err
	}
	if a.Targets = fs.Args(); fs.NArg() == 1 && fs.Arg(0) == "-" {
		a.Stdin = g.stdin
	}
	err := g.op().Fmt(a, view.Fmt{W: g.stdout, Write: func(sources map[string]*hcl.File, diags hcl.Diagnostics) {
		_ = diagtext.NewWriter(g.stderr, sources, termWidth(), useColor(g, g.stderr)).WriteDiagnostics(diags)
	}})
	if errors.Is(err, operation.ErrUnformatted) {
		return reported{exitUnformatted}
	}
	return err
}
