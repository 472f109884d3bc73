package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESpecReferenceValidates keeps the spec-language reference
// (docs/spec.md, once the README's) honest: every hcl block between the
// spec-reference markers, put together, must be a valid lab.
func TestREADMESpecReferenceValidates(t *testing.T) {
	page, err := os.ReadFile("../../docs/spec.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	begin := strings.Index(text, "<!-- spec-reference:begin")
	end := strings.Index(text, "<!-- spec-reference:end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/spec.md lacks the spec-reference markers")
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(text[begin:end], -1)
	if len(blocks) < 5 {
		t.Fatalf("only %d hcl blocks in the spec reference", len(blocks))
	}
	validateBlocks(t, blocks)
}

// TestREADMESpecValidates: the spec on the README's first page is a lab
// that validates.
func TestREADMESpecValidates(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) != 1 {
		t.Fatalf("%d hcl blocks in README.md, want the one spec", len(blocks))
	}
	validateBlocks(t, blocks)
}

// validateBlocks writes the blocks' sources (each match's group 1) as one
// lab and fails t unless lab validate accepts it.
func validateBlocks(t *testing.T, blocks [][]string) {
	t.Helper()
	var src strings.Builder
	for _, b := range blocks {
		src.WriteString(b[1] + "\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.hcl"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The files the reference reads with file(), as a user would have them.
	for name, body := range map[string]string{"user-data.yaml": "#cloud-config\npackages: [iperf3]\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-chdir=" + dir, "validate"}, nil, &stdout, &stderr, nil); code != 0 {
		t.Errorf("the hcl blocks do not validate:\n%s", stderr.String())
	}
}
