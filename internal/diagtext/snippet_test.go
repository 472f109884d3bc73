package diagtext

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestSnippetOf: the snippet object of validate -json (Terraform's
// DiagnosticSnippet) highlights exactly the subject in its code, on cut
// lines and over several lines, and names the enclosing block.
func TestSnippetOf(t *testing.T) {
	long := strings.Repeat("x", 300)
	src := "lab \"l\" {}\nexperiment \"e\" {\n  description = \"" + long + "\" + BAD\n  a = [1,\n    2]\n}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rangeOf := func(text string) *hcl.Range {
		i := strings.Index(src, text)
		start := hcl.Pos{Line: 1 + strings.Count(src[:i], "\n"), Byte: i}
		end := hcl.Pos{Line: 1 + strings.Count(src[:i+len(text)], "\n"), Byte: i + len(text)}
		return &hcl.Range{Filename: "lab.hcl", Start: start, End: end}
	}
	tests := []struct {
		name, subject string
		lines         int
	}{
		{"on a cut line", "BAD", 1},
		{"over two lines", "[1,\n    2]", 2},
		{"a whole short line", "lab \"l\" {}", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := SnippetOf(f, &hcl.Diagnostic{Subject: rangeOf(tc.subject)})
			if !ok {
				t.Fatal("no snippet")
			}
			if got := s.Code[s.HighlightStart:s.HighlightEnd]; got != tc.subject {
				t.Errorf("highlight %q, want %q in %q", got, tc.subject, s.Code)
			}
			if n := strings.Count(s.Code, "\n") + 1; n != tc.lines || s.StartLine != rangeOf(tc.subject).Start.Line {
				t.Errorf("%d line(s) from %d: %q", n, s.StartLine, s.Code)
			}
			for _, line := range strings.Split(s.Code, "\n") {
				if n := len([]rune(line)); n > MaxSnippetWidth+2 {
					t.Errorf("line of %d characters", n)
				}
			}
		})
	}
	if s, _ := SnippetOf(f, &hcl.Diagnostic{Subject: rangeOf("BAD")}); s.Context != `experiment "e"` {
		t.Errorf("context %q", s.Context)
	}
	if _, ok := SnippetOf(nil, &hcl.Diagnostic{Subject: rangeOf("BAD")}); ok {
		t.Error("snippet of a file not loaded")
	}
	if _, ok := SnippetOf(f, &hcl.Diagnostic{}); ok {
		t.Error("snippet without a subject")
	}
}
