// Package diagtext renders HCL diagnostics for people and editors: the
// text layout of HCL's writer ("Error: summary", "on FILE line N, in
// BLOCK:", numbered source lines), escaped so that hostile input cannot
// drive the terminal, with long lines cut, values a diagnostic's
// expression reads shown unless marked sensitive, and the source of a lab
// file that is a symbolic link out of its directory withheld
// (HiddenSource); and the source snippet `validate -json` gives editors
// (SnippetOf). What the diagnostics say is the spec's; how they are
// shown is this package's.
package diagtext

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	wordwrap "github.com/mitchellh/go-wordwrap"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/hclvalue"
)

// Bounds on the source a diagnostic shows. A spec may hold a 400 KB line
// (one long string): echoing it whole, once per diagnostic, buried the
// message under megabytes of stderr.
const (
	// MaxSnippetWidth is the most characters of one source line a
	// diagnostic shows; a longer line is cut around what the diagnostic
	// points at, with "…" where it was cut.
	MaxSnippetWidth = 200
	// MaxSnippetLines is the most source lines one diagnostic shows.
	MaxSnippetLines = 10
	// snippetLead is how many characters before the highlighted part a
	// cut line keeps.
	snippetLead = 60
)

// diagWriter renders diagnostics as HCL's text writer does (the same
// layout: "Error: summary", "  on FILE line N, in BLOCK:", numbered
// source lines, detail), with three differences that make it safe for
// hostile input: every text taken from the spec is escaped (ESC and
// other control bytes, invalid UTF-8 and bidirectional overrides become
// visible \x1b / \u202e escapes, so a spec cannot drive the terminal),
// source lines are cut to MaxSnippetWidth characters and at most
// MaxSnippetLines are shown, and files in hidden have their source withheld.
type diagWriter struct {
	w      io.Writer
	files  map[string]*hcl.File
	hidden map[string]string // file name → why its source is not shown
	// checkLinks: a file not in hidden is looked at (HiddenSource, with
	// its own directory as the lab directory) before its source is shown.
	checkLinks bool
	width      uint
	color      bool
}

// NewWriter is an hcl.DiagnosticWriter for diagnostics about files (by
// name) that escapes what it prints from them, cuts long source lines,
// and shows no source of a file that is a symbolic link out of its own
// directory (HiddenSource); width 0 leaves details unwrapped, color adds
// VT100 colors and underlines what the diagnostic points at.
func NewWriter(w io.Writer, files map[string]*hcl.File, width uint, color bool) hcl.DiagnosticWriter {
	return &diagWriter{w: w, files: files, hidden: map[string]string{}, checkLinks: true, width: width, color: color}
}

// NewWriterHiding is NewWriter for files whose source was judged when
// they were loaded (as spec.Load does, against the lab directory): hidden
// says why a file's source is not shown, and no file is looked at again.
func NewWriterHiding(w io.Writer, files map[string]*hcl.File, hidden map[string]string, width uint, color bool) hcl.DiagnosticWriter {
	return &diagWriter{w: w, files: files, hidden: hidden, width: width, color: color}
}

// hiddenWhy says why the source of name is not shown, "" when it is.
func (dw *diagWriter) hiddenWhy(name string) string {
	why, ok := dw.hidden[name]
	if !ok && dw.checkLinks {
		why = HiddenSource(filepath.Dir(name), name)
		dw.hidden[name] = why
	}
	return why
}

// WriteDiagnostics writes each diagnostic in turn.
func (dw *diagWriter) WriteDiagnostics(diags hcl.Diagnostics) error {
	for _, d := range diags {
		if err := dw.WriteDiagnostic(d); err != nil {
			return err
		}
	}
	return nil
}

// WriteDiagnostic writes one diagnostic.
func (dw *diagWriter) WriteDiagnostic(d *hcl.Diagnostic) error {
	if d == nil {
		return errors.New("nil diagnostic")
	}
	var b strings.Builder
	color, reset := "", ""
	if dw.color {
		color, reset = "\x1b[33m", "\x1b[0m"
		if d.Severity == hcl.DiagError {
			color = "\x1b[31m"
		}
	}
	sev := "Warning"
	if d.Severity == hcl.DiagError {
		sev = "Error"
	}
	fmt.Fprintf(&b, "%s%s%s: %s\n\n", color, sev, reset, EscapeText(d.Summary, false))
	if d.Subject != nil {
		dw.writeSource(&b, d)
		writeVariables(&b, d)
	}
	if d.Detail != "" {
		detail := EscapeText(d.Detail, true)
		if dw.width != 0 {
			detail = wordwrap.WrapString(detail, dw.width)
		}
		fmt.Fprintf(&b, "%s\n\n", detail)
	}
	if _, err := io.WriteString(dw.w, b.String()); err != nil {
		return fmt.Errorf("write failed: %w", err)
	}
	return nil
}

// writeSource writes the "on FILE line N" header and the source lines the
// diagnostic's subject (and context) cover.
func (dw *diagWriter) writeSource(b *strings.Builder, d *hcl.Diagnostic) {
	subj := *d.Subject
	name := EscapeText(subj.Filename, false)
	if why := dw.hiddenWhy(subj.Filename); why != "" {
		fmt.Fprintf(b, "  on %s line %d:\n  (source not shown: %s)\n\n", name, subj.Start.Line, EscapeText(why, false))
		return
	}
	f := dw.files[subj.Filename]
	if f == nil || f.Bytes == nil {
		fmt.Fprintf(b, "  on %s line %d:\n  (source code not available)\n\n", name, subj.Start.Line)
		return
	}
	in := ""
	if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
		if c := cs.ContextString(subj.Start.Byte); c != "" {
			in = ", in " + cutText(EscapeText(c, false), snippetLead)
		}
	}
	fmt.Fprintf(b, "  on %s line %d%s:\n", name, subj.Start.Line, in)
	snip, hl := subj, subj
	if d.Context != nil {
		snip = hcl.RangeOver(snip, *d.Context)
	}
	// An empty range is shown as its first character.
	if hl.Empty() {
		hl.End.Byte++
	}
	if snip.Empty() {
		snip.End.Byte++
	}
	lines := sourceLines(f.Bytes, snip)
	for _, l := range lines {
		text, caret, altered := renderLine(f.Bytes[l.start:l.end], hl.Start.Byte-l.start, hl.End.Byte-l.start, dw.color)
		fmt.Fprintf(b, "%4d: %s\n", l.line, text)
		// The marker goes under the line where the highlight starts.
		if altered && caret != "" && hl.Start.Byte >= l.start && hl.Start.Byte <= l.end {
			fmt.Fprintf(b, "      %s\n", caret)
		}
	}
	if len(lines) == MaxSnippetLines && lines[len(lines)-1].end+1 < min(snip.End.Byte, len(f.Bytes)) {
		b.WriteString("      …\n") // the range goes on
	}
	b.WriteByte('\n')
}

// srcLine is one line of a file: its number and byte span (without the
// line ending).
type srcLine struct {
	line, start, end int
}

// sourceLines finds the lines of src that r overlaps, at most
// MaxSnippetLines of them, from r's start byte (no scan of the whole file).
func sourceLines(src []byte, r hcl.Range) []srcLine {
	start := min(max(r.Start.Byte, 0), len(src))
	lineNo := max(r.Start.Line, 1)
	if start == len(src) && start > 0 && src[start-1] == '\n' {
		return nil // points past the last line
	}
	for start > 0 && src[start-1] != '\n' {
		start--
	}
	var out []srcLine
	for start < len(src) || (start == 0 && len(src) == 0) {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		next := end + 1
		if end > start && src[end-1] == '\r' {
			end--
		}
		out = append(out, srcLine{lineNo, start, end})
		if next >= r.End.Byte || len(out) == MaxSnippetLines || next > len(src) {
			break
		}
		start, lineNo = next, lineNo+1
	}
	return out
}

// unit is one shown piece of a source line: a character, or the escape
// that stands for a control byte.
type unit struct {
	start, end int    // bytes of the line
	text       string // what is shown
	escaped    bool
}

// renderLine shows line with bytes [hs, he) highlighted (underlined when
// color is set), escaped, and cut to MaxSnippetWidth characters around
// the highlight. altered reports a line shown otherwise than written;
// caret then marks the highlighted columns ("^^^") for a line under it.
func renderLine(line []byte, hs, he int, color bool) (text, caret string, altered bool) {
	line, hs, he, leftCut, rightCut := trimLine(line, hs, he)
	units := splitUnits(line)
	first, last := len(units), len(units) // highlighted units [first, last)
	for i, u := range units {
		if u.end > hs && first == len(units) {
			first = i
		}
		if u.start >= he {
			last = i
			break
		}
	}
	last = max(last, first)
	lo, hi := window(units, first)
	var b strings.Builder
	col, caretCol, caretLen := 0, -1, 0
	if lo > 0 || leftCut {
		b.WriteString("…")
		col++
		altered = true
	}
	for i := lo; i < hi; i++ {
		u := units[i]
		altered = altered || u.escaped
		if i == first && color {
			b.WriteString("\x1b[1;4m")
		}
		if i >= first && i < last {
			if caretCol < 0 {
				caretCol = col
			}
			caretLen += len([]rune(u.text))
		}
		b.WriteString(u.text)
		col += len([]rune(u.text))
		if i == last-1 && color {
			b.WriteString("\x1b[0m")
		}
	}
	if color && first < last && last > hi && first < hi {
		b.WriteString("\x1b[0m")
	}
	if hi < len(units) || rightCut {
		b.WriteString("…")
		altered = true
	}
	if caretCol < 0 {
		return b.String(), "", altered
	}
	return b.String(), strings.Repeat(" ", caretCol) + strings.Repeat("^", max(1, min(caretLen, MaxSnippetWidth))), altered
}

// trimLine cuts a very long line to the bytes that can be shown around
// byte hs (a character is at most 4 bytes), so that a 400 KB line is not
// split into 400 000 characters; it reports where it cut.
func trimLine(line []byte, hs, he int) (out []byte, ths, the int, leftCut, rightCut bool) {
	const span = 4 * (MaxSnippetWidth + snippetLead + 2)
	if len(line) <= span {
		return line, hs, he, false, false
	}
	from := max(0, min(hs, len(line))-4*(snippetLead+1))
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	to := min(len(line), from+span)
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	return line[from:to], hs - from, he - from, from > 0, to < len(line)
}

// window picks the units [lo, hi) to show, at most MaxSnippetWidth
// characters, keeping snippetLead characters before unit first.
func window(units []unit, first int) (lo, hi int) {
	width := func(i int) int { return len([]rune(units[i].text)) }
	total := 0
	for i := range units {
		total += width(i)
	}
	if total <= MaxSnippetWidth {
		return 0, len(units)
	}
	lo = min(first, len(units))
	for lead := 0; lo > 0 && lead+width(lo-1) <= snippetLead; lo-- {
		lead += width(lo - 1)
	}
	hi = lo
	for shown := 0; hi < len(units) && shown+width(hi) <= MaxSnippetWidth; hi++ {
		shown += width(hi)
	}
	return lo, hi
}

// splitUnits cuts line into shown characters, escaping as EscapeText does.
func splitUnits(line []byte) []unit {
	var out []unit
	for i := 0; i < len(line); {
		r, size := decodeRune(line[i:])
		text, esc := escapeRune(r, line[i])
		out = append(out, unit{i, i + size, text, esc})
		i += size
	}
	return out
}

// EscapeText makes s safe to print on a terminal: ESC and every other C0
// control byte but tab (and newline when keepNewlines), DEL, C1 controls,
// bidirectional overrides and invalid UTF-8 become visible escapes
// ("\x1b", "\u202e", "\xff").
func EscapeText(s string, keepNewlines bool) string {
	clean := true
	for _, r := range s {
		if r == '\n' && keepNewlines {
			continue
		}
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			r = -1
		}
		if r == '\n' && keepNewlines {
			b.WriteByte('\n')
		} else {
			text, _ := escapeRune(r, s[i])
			b.WriteString(text)
		}
		i += size
	}
	return b.String()
}

// decodeRune is utf8.DecodeRune that reports an invalid byte as -1.
func decodeRune(p []byte) (rune, int) {
	r, size := utf8.DecodeRune(p)
	if r == utf8.RuneError && size <= 1 {
		return -1, 1
	}
	return r, size
}

// unsafeRune reports a rune EscapeText escapes (-1: an invalid byte).
func unsafeRune(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == utf8.RuneError, r == -1:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
		return true // bidirectional controls reorder what follows them
	}
	return false
}

// escapeRune is the text shown for r, whose first byte is b0.
func escapeRune(r rune, b0 byte) (string, bool) {
	switch {
	case r == -1:
		return fmt.Sprintf(`\x%02x`, b0), true
	case !unsafeRune(r):
		return string(r), false
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r), true
	}
	return fmt.Sprintf(`\u%04x`, r), true
}

// cutText shortens s to n characters, marking the cut with "…".
func cutText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// writeVariables lists the values of the variables the diagnostic's
// expression reads, as HCL's writer does ("with var.x as 5,"), escaped
// and cut.
func writeVariables(b *strings.Builder, d *hcl.Diagnostic) {
	if d.Expression == nil || d.EvalContext == nil {
		return
	}
	seen := map[string]bool{}
	var stmts []string
	for _, tr := range d.Expression.Variables() {
		v, diags := tr.TraverseAbs(d.EvalContext)
		if diags.HasErrors() || !v.IsKnown() || v.IsMarked() {
			continue
		}
		name := traversalText(tr)
		if seen[name] {
			continue
		}
		seen[name] = true
		if v.IsNull() {
			stmts = append(stmts, name+" set to null")
			continue
		}
		stmts = append(stmts, name+" as "+cutText(EscapeText(shortValue(v), false), snippetLead))
	}
	sort.Strings(stmts)
	for i, s := range stmts {
		lead, end := "     ", ",\n"
		if i == 0 {
			lead = "with "
		}
		if i == len(stmts)-1 {
			end = ".\n\n"
		}
		b.WriteString(lead + s + end)
	}
}

func traversalText(tr hcl.Traversal) string {
	var b strings.Builder
	for _, step := range tr {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type().IsPrimitiveType() {
				b.WriteString("[" + shortValue(s.Key) + "]")
			} else {
				b.WriteString("[...]")
			}
		}
	}
	return EscapeText(b.String(), false)
}

// shortValue renders a value in a few words, as HCL's writer does.
func shortValue(v cty.Value) string {
	ty := v.Type()
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "(not yet known)"
	case ty == cty.Bool:
		return fmt.Sprint(v.True())
	case ty == cty.Number:
		return hclvalue.NumberText(v)
	case ty == cty.String:
		return fmt.Sprintf("%q", v.AsString())
	case ty.IsCollectionType() || ty.IsTupleType():
		switch n := v.LengthInt(); n {
		case 0:
			return "empty " + ty.FriendlyName()
		case 1:
			return ty.FriendlyName() + " with 1 element"
		default:
			return fmt.Sprintf("%s with %d elements", ty.FriendlyName(), n)
		}
	case ty.IsObjectType():
		return fmt.Sprintf("object with %d attributes", len(ty.AttributeTypes()))
	}
	return ty.FriendlyName()
}
