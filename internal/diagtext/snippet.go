package diagtext

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Snippet is the source lines of f that r covers, for editors (validate
// -json): at most MaxSnippetLines, each cut to MaxSnippetWidth characters
// around r (with "…" where cut) but not escaped, since JSON escapes by
// itself. It is "" when f is nil or holds no source.
func Snippet(f *hcl.File, r hcl.Range) string {
	if f == nil || f.Bytes == nil || r.Start.Line < 1 {
		return ""
	}
	if r.Empty() {
		r.End.Byte++
	}
	var lines []string
	for _, sl := range sourceLines(f.Bytes, r) {
		lines = append(lines, cutLine(string(f.Bytes[sl.start:sl.end]), r.Start.Byte-sl.start))
	}
	return strings.Join(lines, "\n")
}

// cutLine cuts line to MaxSnippetWidth characters, keeping snippetLead
// characters before byte at, without escaping.
func cutLine(line string, at int) string {
	out, _, _ := cutLineAt(line, at)
	return out
}

// cutLineAt is cutLine that also says where the kept text starts: at
// byte from of line, after lead bytes of "…" in out.
func cutLineAt(line string, at int) (out string, from, lead int) {
	runes := []rune(line)
	if len(runes) <= MaxSnippetWidth {
		return line, 0, 0
	}
	first := len([]rune(line[:min(max(at, 0), len(line))]))
	lo := max(0, first-snippetLead)
	hi := min(len(runes), lo+MaxSnippetWidth)
	out = string(runes[lo:hi])
	from = len(string(runes[:lo]))
	if lo > 0 {
		out = "…" + out
		lead = len("…")
	}
	if hi < len(runes) {
		out += "…"
	}
	return out, from, lead
}

// SourceSnippet is a diagnostic's source as Terraform's `validate -json`
// gives it (its "snippet" object; see cmd/lab/internal/view): the lines
// that the subject and the context cover, cut as Snippet cuts them.
type SourceSnippet struct {
	// Context is the header of the top-level block the subject lies in
	// (`experiment "e"`, as the text diagnostics' "in …"), "" when none.
	Context string
	// Code is the source lines, joined by "\n"; StartLine the first one's
	// number (from 1).
	Code      string
	StartLine int
	// HighlightStart and HighlightEnd are the subject's byte offsets in
	// Code, capped at its bounds.
	HighlightStart, HighlightEnd int
}

// SnippetOf is d's source in f (the file its subject names) for editors,
// or false when d has no subject or f is nil or holds no source. As
// Terraform does, the lines cover the subject and d.Context, and an empty
// subject is one byte long.
func SnippetOf(f *hcl.File, d *hcl.Diagnostic) (SourceSnippet, bool) {
	if d.Subject == nil {
		return SourceSnippet{}, false
	}
	hl := *d.Subject
	if f == nil || f.Bytes == nil || hl.Start.Line < 1 {
		return SourceSnippet{}, false
	}
	if hl.End == (hcl.Pos{}) {
		hl.End = hl.Start
	}
	snip := hl
	if d.Context != nil && d.Context.Filename == hl.Filename {
		snip = hcl.RangeOver(*d.Context, hl)
	}
	if snip.Empty() {
		snip.End.Byte++
	}
	if hl.Empty() {
		hl.End.Byte++
	}
	lines := sourceLines(f.Bytes, snip)
	if len(lines) == 0 {
		return SourceSnippet{}, false
	}
	s := SourceSnippet{StartLine: lines[0].line, HighlightStart: -1, HighlightEnd: -1}
	if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
		s.Context = cutText(cs.ContextString(hl.Start.Byte), MaxSnippetWidth)
	}
	var code strings.Builder
	for i, sl := range lines {
		if i > 0 {
			code.WriteByte('\n')
		}
		line, from, lead := cutLineAt(string(f.Bytes[sl.start:sl.end]), hl.Start.Byte-sl.start)
		at := func(b int) int { return code.Len() + min(max(b-sl.start-from+lead, 0), len(line)) }
		if s.HighlightStart < 0 && hl.Start.Byte <= sl.end {
			s.HighlightStart = at(hl.Start.Byte)
		}
		if s.HighlightEnd < 0 && hl.End.Byte <= sl.end+1 {
			s.HighlightEnd = at(min(hl.End.Byte, sl.end))
		}
		code.WriteString(line)
	}
	s.Code = code.String()
	s.HighlightStart = max(s.HighlightStart, 0)
	if s.HighlightEnd < s.HighlightStart {
		s.HighlightEnd = len(s.Code)
	}
	return s, true
}
