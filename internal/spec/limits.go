package spec

import (
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Limits on what Load accepts. They bound the memory and time decoding can
// take on any input: a spec that goes over one is refused with a
// diagnostic naming the file, line and column, never a crash or a hang.
const (
	// MaxFileSize bounds each lab file (*.hcl) and each -var-file.
	MaxFileSize = 1 << 20
	// MaxNesting bounds how deeply brackets, braces, parentheses, strings,
	// template interpolations, unary operators and conditionals nest.
	MaxNesting = 100
	// MaxForNesting bounds how deeply for expressions nest ([for a in …:
	// [for b in …: …]]): each level multiplies the values made.
	MaxForNesting = 2
	// MaxCells bounds an experiment's cells: pairs × the product of the
	// numbers of matrix values.
	MaxCells = 10000
	// MaxRuns bounds the runs of a lab: over all experiments, cells ×
	// (repeat + warmup). It bounds the plan's size in memory.
	MaxRuns = 100000
	// MaxDiagnostics bounds the diagnostics Load returns (and
	// WriteDiagnostics prints): 10 000 duplicate blocks gave 10 000
	// errors, each rendered by rescanning the file.
	MaxDiagnostics = 50
)

// capDiagnostics keeps the first MaxDiagnostics diagnostics and says how
// many more there were, pointing at the last one kept.
func capDiagnostics(diags hcl.Diagnostics) hcl.Diagnostics {
	if len(diags) <= MaxDiagnostics {
		return diags
	}
	kept := diags[:MaxDiagnostics:MaxDiagnostics]
	var subject *hcl.Range
	for i := len(kept) - 1; i >= 0 && subject == nil; i-- {
		subject = kept[i].Subject
	}
	sev := hcl.DiagWarning
	if diags[MaxDiagnostics:].HasErrors() {
		sev = hcl.DiagError
	}
	return append(kept, &hcl.Diagnostic{Severity: sev, Summary: "Too many problems",
		Detail:  fmt.Sprintf("%d more diagnostics are not shown; fix the ones above first.", len(diags)-MaxDiagnostics),
		Subject: subject})
}

// readLabFile reads a lab or variable file: a regular file of at most
// MaxFileSize bytes. A FIFO, device or directory is refused without being
// read (so a FIFO never blocks and /dev/zero never fills memory).
func readLabFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the file be swapped for a FIFO after the Stat,
	// opening it still does not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose on close
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than %d bytes (1 MiB), the limit for a lab or variable file", path, MaxFileSize)
	}
	return b, nil
}

func checkRegular(path string, fi os.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		if fi.Size() > MaxFileSize {
			return fmt.Errorf("%s has %d bytes; a lab or variable file may have at most %d (1 MiB)", path, fi.Size(), MaxFileSize)
		}
		return nil
	case m.IsDir():
		return fmt.Errorf("%s is a directory, not a regular file", path)
	case m&os.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a FIFO (named pipe), not a regular file", path)
	case m&os.ModeDevice != 0:
		return fmt.Errorf("%s is a device, not a regular file", path)
	case m&os.ModeSocket != 0:
		return fmt.Errorf("%s is a socket, not a regular file", path)
	}
	return fmt.Errorf("%s is not a regular file", path)
}

// fileStart is the range of a file's first character, for diagnostics
// about a file as a whole.
func fileStart(name string) *hcl.Range {
	return &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 1, Byte: 0}}
}

// nestingOpens and nestingCloses are the tokens that open and close a
// nesting level in hclsyntax's parser.
var (
	nestingOpens = map[hclsyntax.TokenType]bool{
		hclsyntax.TokenOBrace: true, hclsyntax.TokenOBrack: true, hclsyntax.TokenOParen: true,
		hclsyntax.TokenOQuote: true, hclsyntax.TokenOHeredoc: true,
		hclsyntax.TokenTemplateInterp: true, hclsyntax.TokenTemplateControl: true,
	}
	nestingCloses = map[hclsyntax.TokenType]bool{
		hclsyntax.TokenCBrace: true, hclsyntax.TokenCBrack: true, hclsyntax.TokenCParen: true,
		hclsyntax.TokenCQuote: true, hclsyntax.TokenCHeredoc: true, hclsyntax.TokenTemplateSeqEnd: true,
	}
)

// checkNesting scans src's tokens (strings, comments and heredocs are
// told apart by hclsyntax's own lexer, which does not recurse) and
// reports the first place nesting goes deeper than MaxNesting, before the
// recursive parser sees it. Runs of unary operators (!!!x, - - x) and
// chained conditionals (a ? b : c ? d : …) count as nesting too: the
// parser recurses for each.
func checkNesting(src []byte, filename string) *hcl.Diagnostic {
	tokens, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	type level struct{ conds int }
	stack := []level{{}}
	unary := 0
	for i, t := range tokens {
		top := &stack[len(stack)-1]
		switch {
		case nestingOpens[t.Type]:
			stack = append(stack, level{})
			unary = 0
		case nestingCloses[t.Type]:
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			unary = 0
		case t.Type == hclsyntax.TokenQuestion:
			top.conds++
			unary = 0
		case t.Type == hclsyntax.TokenNewline || t.Type == hclsyntax.TokenComma:
			top.conds = 0
			unary = 0
		case t.Type == hclsyntax.TokenBang || t.Type == hclsyntax.TokenMinus:
			// A minus after a value is binary; only a run of operators
			// with no value between them recurses.
			if i > 0 && isValueEnd(tokens[i-1].Type) {
				unary = 0
			} else {
				unary++
			}
		default:
			unary = 0
		}
		depth := len(stack) - 1 + stack[len(stack)-1].conds + unary
		if depth > MaxNesting {
			r := t.Range
			return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nesting too deep",
				Detail: fmt.Sprintf("Brackets, braces, parentheses, strings, interpolations, unary operators and conditionals nest more than %d levels deep here; at most %d are allowed.",
					MaxNesting, MaxNesting),
				Subject: &r}
		}
	}
	return nil
}

// isValueEnd reports whether a token can end an operand, making a
// following minus binary.
func isValueEnd(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrace, hclsyntax.TokenCBrack,
		hclsyntax.TokenCParen, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
		return true
	}
	return false
}

// forDepth finds for expressions nested deeper than MaxForNesting.
type forDepth struct {
	depth int
	diag  *hcl.Diagnostic
}

func (w *forDepth) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if _, ok := n.(*hclsyntax.ForExpr); ok {
		w.depth++
		if w.depth > MaxForNesting && w.diag == nil {
			r := n.Range()
			w.diag = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "For expressions nested too deeply",
				Detail: fmt.Sprintf("This for expression is nested %d levels deep; at most %d are allowed, since every level multiplies the values made.",
					w.depth, MaxForNesting),
				Subject: &r}
		}
	}
	return nil
}

func (w *forDepth) Exit(n hclsyntax.Node) hcl.Diagnostics {
	if _, ok := n.(*hclsyntax.ForExpr); ok {
		w.depth--
	}
	return nil
}

// checkForNesting reports the first for expression of body nested deeper
// than MaxForNesting.
func checkForNesting(body hcl.Body) *hcl.Diagnostic {
	b, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	w := &forDepth{}
	_ = hclsyntax.Walk(b, w) // the walker reports through w.diag
	return w.diag
}

// parseLimited parses a file after checking its nesting.
func parseLimited(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if d := checkNesting(src, filename); d != nil {
		return nil, hcl.Diagnostics{d}
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if f != nil && !diags.HasErrors() {
		if d := checkForNesting(f.Body); d != nil {
			diags = append(diags, d)
		}
	}
	return f, diags
}

// checkCells refuses an experiment of more than MaxCells cells (pairs ×
// the numbers of values of its matrix keys), pointing at its matrix (or
// its pairs when it has no matrix). It returns the number of cells, or
// -1 when there are too many.
func checkCells(e *Experiment, matrix, pairs *hcl.Attribute) (int, *hcl.Diagnostic) {
	if len(e.Pairs) == 0 {
		return 0, nil // reported already
	}
	n := big.NewInt(int64(len(e.Pairs)))
	factors := []string{fmt.Sprintf("%d pair%s", len(e.Pairs), plural(len(e.Pairs)))}
	for _, d := range e.Matrix {
		n.Mul(n, big.NewInt(int64(len(d.Values))))
		factors = append(factors, fmt.Sprintf("%d value%s of matrix.%s", len(d.Values), plural(len(d.Values)), d.Name))
	}
	if n.IsInt64() && n.Int64() <= MaxCells {
		return int(n.Int64()), nil
	}
	subject := e.DeclRange
	switch {
	case matrix != nil:
		subject = matrix.Expr.Range()
	case pairs != nil:
		subject = pairs.Expr.Range()
	}
	return -1, errorf(subject, "Too many cells",
		"Experiment %q has %s cells (%s); at most %d cells are allowed in one experiment.",
		e.Name, n.String(), strings.Join(factors, " × "), MaxCells)
}

// checkRuns adds an experiment's runs to the lab's total and refuses the
// experiment that takes it over MaxRuns, pointing at its repeat (or the
// block when repeat is not written).
func (l *loader) checkRuns(e *Experiment, cells int, repeat *hcl.Attribute) *hcl.Diagnostic {
	if cells <= 0 || l.runs > MaxRuns {
		return nil
	}
	runs := cells * (e.Repeat + e.Warmup)
	l.runs += runs
	if l.runs <= MaxRuns {
		return nil
	}
	subject := e.DeclRange
	if repeat != nil {
		subject = repeat.Expr.Range()
	}
	return errorf(subject, "Too many runs",
		"Experiment %q has %d runs (%d cells × (repeat %d + warmup %d)), which brings the lab to %d runs; at most %d are allowed over all experiments.",
		e.Name, runs, cells, e.Repeat, e.Warmup, l.runs, MaxRuns)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
