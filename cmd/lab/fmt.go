package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/udiff"
)

// exitUnformatted is fmt -check's status when a file needs formatting
// (Terraform's).
const exitUnformatted = 3

// fmtOptions are fmt's flags.
type fmtOptions struct {
	check, diff, recursive, list bool
}

// runFmt is `lab fmt [PATH…]`: rewrite the lab's .hcl and .labvars files
// in the canonical style (hclwrite.Format), as terraform fmt does.
func runFmt(g *globals, args []string) error {
	fs := newFlags(g, "fmt", "fmt [-check] [-diff] [-recursive] [-list=false] [PATH… | -]")
	var o fmtOptions
	fs.BoolVar(&o.check, "check", false, fmt.Sprintf("change nothing; exit %d when a file is not formatted", exitUnformatted))
	fs.BoolVar(&o.diff, "diff", false, "print the changes as a unified diff")
	fs.BoolVar(&o.recursive, "recursive", false, "also format the files in subdirectories")
	fs.BoolVar(&o.list, "list", true, "print the names of the files that are (or, with -check, would be) changed")
	if err := parseFlags(fs, args, arity{0, 1 << 20, "files or directories"}); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "-" {
		return fmtStdin(g, o)
	}
	targets := fs.Args()
	if len(targets) == 0 {
		targets = []string{"."}
	}
	files, err := operation.FmtFiles(g.dir, targets, o.recursive)
	if err != nil {
		return err
	}
	unformatted := 0
	var diags hcl.Diagnostics
	sources := map[string]*hcl.File{}
	for _, f := range files {
		changed, d, err := fmtFile(g, f, o, sources)
		if err != nil {
			return err
		}
		diags = append(diags, d...)
		if changed {
			unformatted++
		}
	}
	if len(diags) > 0 {
		_ = diagtext.NewWriter(g.stderr, sources, termWidth(), useColor(g, g.stderr)).WriteDiagnostics(diags)
		return reported{exitError}
	}
	if o.check && unformatted > 0 {
		return reported{exitUnformatted}
	}
	return nil
}

// fmtFile formats one file: a syntax error comes back as diagnostics
// (the file left alone); changed says the file was not formatted.
func fmtFile(g *globals, path string, o fmtOptions, sources map[string]*hcl.File) (changed bool, diags hcl.Diagnostics, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	out, diags := operation.FormatSource(src, path, sources)
	if diags.HasErrors() || bytes.Equal(out, src) {
		return false, diags, nil
	}
	name := operation.DisplayPath(g.dir, path)
	if o.list {
		fmt.Fprintln(g.stdout, name)
	}
	if o.diff {
		udiff.Write(g.stdout, name, string(src), string(out))
	}
	if !o.check {
		fi, err := os.Stat(path)
		if err != nil {
			return true, nil, err
		}
		if err := atomicfile.Write(path, out, fi.Mode().Perm()); err != nil {
			return true, nil, err
		}
	}
	return true, nil, nil
}

// fmtStdin formats standard input to standard output (for editors).
func fmtStdin(g *globals, o fmtOptions) error {
	src, err := io.ReadAll(g.stdin)
	if err != nil {
		return err
	}
	sources := map[string]*hcl.File{}
	out, diags := operation.FormatSource(src, "<stdin>", sources)
	if diags.HasErrors() {
		_ = diagtext.NewWriter(g.stderr, sources, termWidth(), useColor(g, g.stderr)).WriteDiagnostics(diags)
		return reported{exitError}
	}
	switch {
	case o.diff:
		udiff.Write(g.stdout, "<stdin>", string(src), string(out))
	case !o.check:
		_, err = g.stdout.Write(out)
	}
	if err == nil && o.check && !bytes.Equal(src, out) {
		return reported{exitUnformatted}
	}
	return err
}
