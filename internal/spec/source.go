package spec

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/diagtext"
)

// Snippet is the source lines r covers, for editors (validate -json), as
// diagtext.Snippet cuts them; "" when the file is not loaded or its source
// is hidden (diagtext.HiddenSource).
func (l *Lab) Snippet(r hcl.Range) string {
	if l.hidden[r.Filename] != "" {
		return ""
	}
	return diagtext.Snippet(l.Files[r.Filename], r)
}

// SnippetOf is d's source for editors (diagtext.SnippetOf), or false when
// d has no subject, its file is not loaded or its source is hidden
// (diagtext.HiddenSource).
func (l *Lab) SnippetOf(d *hcl.Diagnostic) (diagtext.SourceSnippet, bool) {
	if d.Subject == nil || l.hidden[d.Subject.Filename] != "" {
		return diagtext.SourceSnippet{}, false
	}
	return diagtext.SnippetOf(l.Files[d.Subject.Filename], d)
}
