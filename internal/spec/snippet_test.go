package spec

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// TestSnippetOfHidden: the lab gives editors no snippet of a file whose
// source is hidden (diagtext.HiddenSource), nor of one it did not load;
// what a shown snippet holds is diagtext's (TestSnippetOf there).
func TestSnippetOfHidden(t *testing.T) {
	src := "lab \"l\" {}\n"
	f, diags := hclsyntax.ParseConfig([]byte(src), "lab.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	l := &Lab{Files: map[string]*hcl.File{"lab.hcl": f}}
	subject := func(name string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 4, Byte: 3}}}
	}
	if s, ok := l.SnippetOf(subject("lab.hcl")); !ok || s.Code != `lab "l" {}` || l.Snippet(*subject("lab.hcl").Subject) != `lab "l" {}` {
		t.Fatalf("snippet of a shown file: %+v, %t", s, ok)
	}
	if _, ok := l.SnippetOf(subject("other.hcl")); ok {
		t.Error("snippet of a file not loaded")
	}
	l.hidden = map[string]string{"lab.hcl": "it is a symbolic link into /etc"}
	if _, ok := l.SnippetOf(subject("lab.hcl")); ok || l.Snippet(*subject("lab.hcl").Subject) != "" {
		t.Error("snippet of a hidden file")
	}
	if _, ok := l.SnippetOf(&hcl.Diagnostic{}); ok {
		t.Error("snippet without a subject")
	}
}
