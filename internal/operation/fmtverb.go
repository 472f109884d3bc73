package operation

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/atomicfile"
)

// FmtArgs are fmt's arguments, parsed from its flags by the CLI.
type FmtArgs struct {
	// Targets are the files and directories formatted (none: the lab
	// directory), relative to it.
	Targets []string
	// Stdin, when set, is formatted instead of Targets (`lab fmt -`).
	Stdin io.Reader
	// Check changes nothing (ErrUnformatted when a file needs it); Diff
	// shows the changes; List names the files changed; Recursive also
	// formats subdirectories.
	Check, Diff, List, Recursive bool
}

// FmtView shows what fmt changed.
type FmtView interface {
	// List names a file that is (or with Check would be) changed.
	List(name string)
	// Diff shows a file's changes as a unified diff.
	Diff(name string, src, out []byte)
	// Formatted shows standard input, formatted.
	Formatted(out []byte) error
	// Diagnostics shows the syntax errors found in sources.
	Diagnostics(sources map[string]*hcl.File, diags hcl.Diagnostics)
}

// ErrUnformatted is fmt -check's verdict: a file is not formatted (the
// CLI exits 3, as terraform fmt -check does).
var ErrUnformatted = errors.New("not formatted")

// Fmt is `lab fmt`: it rewrites the lab's .hcl and .labvars files (or
// standard input) in the canonical style, as terraform fmt does. A file
// with a syntax error is left alone and its diagnostics shown once every
// file was seen (ErrReported).
func (o *Operation) Fmt(args FmtArgs, view FmtView) error {
	if args.Stdin != nil {
		return fmtStdin(args, view)
	}
	targets := args.Targets
	if len(targets) == 0 {
		targets = []string{"."}
	}
	files, err := FmtFiles(o.Dir, targets, args.Recursive)
	if err != nil {
		return err
	}
	unformatted := 0
	var diags hcl.Diagnostics
	sources := map[string]*hcl.File{}
	for _, f := range files {
		changed, d, err := o.fmtFile(f, args, view, sources)
		if err != nil {
			return err
		}
		diags = append(diags, d...)
		if changed {
			unformatted++
		}
	}
	if len(diags) > 0 {
		view.Diagnostics(sources, diags)
		return ErrReported
	}
	if args.Check && unformatted > 0 {
		return ErrUnformatted
	}
	return nil
}

// fmtFile formats one file: a syntax error comes back as diagnostics
// (the file left alone); changed says the file was not formatted.
func (o *Operation) fmtFile(path string, args FmtArgs, view FmtView, sources map[string]*hcl.File) (changed bool, diags hcl.Diagnostics, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return false, nil, err
	}
	out, diags := FormatSource(src, path, sources)
	if diags.HasErrors() || bytes.Equal(out, src) {
		return false, diags, nil
	}
	name := DisplayPath(o.Dir, path)
	if args.List {
		view.List(name)
	}
	if args.Diff {
		view.Diff(name, src, out)
	}
	if !args.Check {
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

// fmtStdin formats standard input to the view (for editors).
func fmtStdin(args FmtArgs, view FmtView) error {
	src, err := io.ReadAll(args.Stdin)
	if err != nil {
		return err
	}
	sources := map[string]*hcl.File{}
	out, diags := FormatSource(src, "<stdin>", sources)
	if diags.HasErrors() {
		view.Diagnostics(sources, diags)
		return ErrReported
	}
	switch {
	case args.Diff:
		view.Diff("<stdin>", src, out)
	case !args.Check:
		err = view.Formatted(out)
	}
	if err == nil && args.Check && !bytes.Equal(src, out) {
		return ErrUnformatted
	}
	return err
}
