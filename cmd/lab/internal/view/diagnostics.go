package view

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
)

// ValidateJSON is `lab validate -json`: the outcome and every diagnostic
// with its source range, for editors.
type ValidateJSON struct {
	Valid        bool       `json:"valid"`
	Lab          string     `json:"lab,omitempty"`
	ErrorCount   int        `json:"error_count"`
	WarningCount int        `json:"warning_count"`
	Diagnostics  []diagJSON `json:"diagnostics"`
}

// diagJSON is one diagnostic. Filenames are relative to the lab directory.
type diagJSON struct {
	Severity string     `json:"severity"` // "error" or "warning"
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *rangeJSON `json:"range,omitempty"`
	// Snippet is the source line(s) the range covers, when known.
	Snippet string `json:"snippet,omitempty"`
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

// DiagnosticsJSON writes diags (of the lab in dir) as `lab validate
// -json` prints them: the outcome and every diagnostic with its range.
func DiagnosticsJSON(w io.Writer, dir string, lab *spec.Lab, diags hcl.Diagnostics) error {
	out := ValidateJSON{Valid: !diags.HasErrors(), Diagnostics: []diagJSON{}}
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
			dj.Snippet = lab.Snippet(*d.Subject)
		}
		out.Diagnostics = append(out.Diagnostics, dj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // snippets keep their < > &
	return enc.Encode(out)
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
