package view

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/udiff"
)

// Fmt is fmt's view (operation.FmtView): names and diffs on W, and
// diagnostics written by Write (the terminal's width, colour).
type Fmt struct {
	W     io.Writer
	Write func(sources map[string]*hcl.File, diags hcl.Diagnostics)
}

// List names a changed file.
func (v Fmt) List(name string) { fmt.Fprintln(v.W, name) }

// Diff shows a file's changes as a unified diff.
func (v Fmt) Diff(name string, src, out []byte) { udiff.Write(v.W, name, string(src), string(out)) }

// Formatted writes standard input, formatted.
func (v Fmt) Formatted(out []byte) error {
	_, err := v.W.Write(out)
	return err
}

// Diagnostics shows the syntax errors.
func (v Fmt) Diagnostics(sources map[string]*hcl.File, diags hcl.Diagnostics) {
	v.Write(sources, diags)
}
