package main

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/lab-bench/lab/atomicfile"
	"github.com/lab-bench/lab/spec"
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
	files, err := fmtFiles(g.dir, targets, o.recursive)
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
		_ = spec.NewDiagnosticWriter(g.stderr, sources, termWidth(), useColor(g, g.stderr)).WriteDiagnostics(diags)
		return reported{exitError}
	}
	if o.check && unformatted > 0 {
		return reported{exitUnformatted}
	}
	return nil
}

// fmtFiles lists the files to format: named files as they are, and in
// named directories the *.hcl and *.labvars files (hidden ones, such as
// .lab.lock.hcl, and hidden directories left out). Relative paths are
// relative to the lab directory.
func fmtFiles(dir string, targets []string, recursive bool) ([]string, error) {
	var out []string
	for _, t := range targets {
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		fi, err := os.Stat(t)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, t)
			continue
		}
		err = filepath.WalkDir(t, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			hidden := strings.HasPrefix(d.Name(), ".") && path != t
			switch {
			case d.IsDir() && (hidden || path != t && !recursive):
				return filepath.SkipDir
			case !d.IsDir() && !hidden && isSpecFile(d.Name()):
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func isSpecFile(name string) bool {
	return strings.HasSuffix(name, ".hcl") || strings.HasSuffix(name, ".labvars")
}

// fmtFile formats one file: a syntax error comes back as diagnostics
// (the file left alone); changed says the file was not formatted.
func fmtFile(g *globals, path string, o fmtOptions, sources map[string]*hcl.File) (changed bool, diags hcl.Diagnostics, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	out, diags := formatSource(src, path, sources)
	if diags.HasErrors() || bytes.Equal(out, src) {
		return false, diags, nil
	}
	name := displayPath(g.dir, path)
	if o.list {
		fmt.Fprintln(g.stdout, name)
	}
	if o.diff {
		writeUnifiedDiff(g.stdout, name, string(src), string(out))
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

// formatSource checks src's syntax and returns it formatted.
func formatSource(src []byte, name string, sources map[string]*hcl.File) ([]byte, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if f != nil {
		sources[name] = f
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}

// fmtStdin formats standard input to standard output (for editors).
func fmtStdin(g *globals, o fmtOptions) error {
	src, err := io.ReadAll(g.stdin)
	if err != nil {
		return err
	}
	sources := map[string]*hcl.File{}
	out, diags := formatSource(src, "<stdin>", sources)
	if diags.HasErrors() {
		_ = spec.NewDiagnosticWriter(g.stderr, sources, termWidth(), useColor(g, g.stderr)).WriteDiagnostics(diags)
		return reported{exitError}
	}
	switch {
	case o.diff:
		writeUnifiedDiff(g.stdout, "<stdin>", string(src), string(out))
	case !o.check:
		_, err = g.stdout.Write(out)
	}
	if err == nil && o.check && !bytes.Equal(src, out) {
		return reported{exitUnformatted}
	}
	return err
}

// displayPath names path relative to the lab directory when inside it.
func displayPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
