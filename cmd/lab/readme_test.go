package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESpecReferenceValidates keeps the README's spec-language
// reference honest: every hcl block between the spec-reference markers,
// put together, must be a valid lab.
func TestREADMESpecReferenceValidates(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	begin := strings.Index(text, "<!-- spec-reference:begin")
	end := strings.Index(text, "<!-- spec-reference:end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md lacks the spec-reference markers")
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(text[begin:end], -1)
	if len(blocks) < 5 {
		t.Fatalf("only %d hcl blocks in the spec reference", len(blocks))
	}
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
		t.Errorf("the README's spec reference does not validate:\n%s", stderr.String())
	}
}
