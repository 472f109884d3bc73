package view

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
)

// ValidateJSON is `lab validate -json`: Terraform's `terraform validate
// -json` object, field for field, so that editor plugins and CI annotators
// written for Terraform read lab's. Terraform's fields are those of
// hashicorp/terraform internal/command/views/validate.go (ValidateJSON.
// Results: format_version "1.0", valid, error_count, warning_count,
// diagnostics, always an array) and internal/command/views/json/
// diagnostic.go (Diagnostic, DiagnosticRange, Pos, DiagnosticSnippet).
// Lab adds "lab" (the lab's name, when valid); Terraform's readers ignore
// fields they do not know (Go's encoding/json and the JSON readers of the
// editor plugins skip them), so it stays.
type ValidateJSON struct {
	FormatVersion string     `json:"format_version"`
	Valid         bool       `json:"valid"`
	Lab           string     `json:"lab,omitempty"`
	ErrorCount    int        `json:"error_count"`
	WarningCount  int        `json:"warning_count"`
	Diagnostics   []diagJSON `json:"diagnostics"`
}

// ValidateFormatVersion is Terraform's validate -json format_version, the
// format lab's follows.
const ValidateFormatVersion = "1.0"

// diagJSON is one diagnostic (Terraform's views/json.Diagnostic, whose
// detail is always present and whose address lab has no use for).
// Filenames are relative to the lab directory.
type diagJSON struct {
	Severity string       `json:"severity"` // "error" or "warning"
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *rangeJSON   `json:"range,omitempty"`
	Snippet  *snippetJSON `json:"snippet,omitempty"` // absent when the source is not shown
}

type rangeJSON struct {
	Filename string  `json:"filename"`
	Start    posJSON `json:"start"`
	End      posJSON `json:"end"`
}

// posJSON is a position: line and column from 1, byte offset from 0.
type posJSON struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// snippetJSON is Terraform's DiagnosticSnippet: the block the range lies
// in (null when none), the source lines (cut to diagtext.MaxSnippetWidth
// characters each, as the text diagnostics are), the first line's number,
// the range's byte offsets in code, and the values of the expression's
// variables (always an array; lab's are in the text only, so empty).
type snippetJSON struct {
	Context              *string     `json:"context"`
	Code                 string      `json:"code"`
	StartLine            int         `json:"start_line"`
	HighlightStartOffset int         `json:"highlight_start_offset"`
	HighlightEndOffset   int         `json:"highlight_end_offset"`
	Values               []valueJSON `json:"values"`
}

// valueJSON is Terraform's DiagnosticExpressionValue.
type valueJSON struct {
	Traversal string `json:"traversal"`
	Statement string `json:"statement"`
}

// DiagnosticsJSON writes diags (of the lab in dir) as `lab validate
// -json` prints them: the outcome and every diagnostic with its range.
func DiagnosticsJSON(w io.Writer, dir string, lab *spec.Lab, diags hcl.Diagnostics) error {
	out := ValidateJSON{FormatVersion: ValidateFormatVersion, Valid: !diags.HasErrors(), Diagnostics: []diagJSON{}}
	if out.Valid {
		out.Lab = lab.Name
	}
	for _, d := range diags {
		dj := diagJSON{Severity: "warning", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagError {
			dj.Severity = "error"
			out.ErrorCount++
		} else {
			out.WarningCount++
		}
		if d.Subject != nil {
			dj.Range = &rangeJSON{Filename: relativeTo(dir, d.Subject.Filename),
				Start: posJSON{d.Subject.Start.Line, d.Subject.Start.Column, d.Subject.Start.Byte},
				End:   posJSON{d.Subject.End.Line, d.Subject.End.Column, d.Subject.End.Byte}}
			dj.Snippet = snippet(lab, d)
		}
		out.Diagnostics = append(out.Diagnostics, dj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // snippets keep their < > &
	return enc.Encode(out)
}

// snippet is d's snippet object, nil when its source is not shown.
func snippet(lab *spec.Lab, d *hcl.Diagnostic) *snippetJSON {
	s, ok := lab.SnippetOf(d)
	if !ok {
		return nil
	}
	sj := &snippetJSON{Code: s.Code, StartLine: s.StartLine, HighlightStartOffset: s.HighlightStart,
		HighlightEndOffset: s.HighlightEnd, Values: []valueJSON{}}
	if s.Context != "" {
		sj.Context = &s.Context
	}
	return sj
}

// relativeTo makes name relative to dir when it lies inside it.
func relativeTo(dir, name string) string {
	if name == "" {
		return ""
	}
	rel, err := filepath.Rel(dir, name)
	if err != nil || strings.HasPrefix(rel, "..") {
		return name
	}
	return rel
}
