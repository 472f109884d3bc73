package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// externalLinks are the links outside the repository the docs may hold:
// cited sources only. None is cited by link today; a new one is added
// here on purpose, never by accident.
var externalLinks = []string{}

// docFiles are the Markdown files whose links TestDocsLinks checks,
// relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	for _, pattern := range []string{"docs/*.md", "examples/*/README.md"} {
		m, err := filepath.Glob(filepath.Join("../..", pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel("../..", f)
			files = append(files, rel)
		}
	}
	return files
}

// TestDocsLinks: every relative link in the README, docs/ and the
// examples' READMEs names a file of the repository and, with #anchor, a
// heading of that file (GitHub's slugs); no link leaves the repository
// but those externalLinks allows.
func TestDocsLinks(t *testing.T) {
	anchors := map[string][]string{} // by file, relative to the root
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range linkProblems(f, string(text), func(target string) ([]string, bool) {
			if a, ok := anchors[target]; ok {
				return a, true
			}
			b, err := os.ReadFile(filepath.Join("../..", target))
			if err != nil {
				_, statErr := os.Stat(filepath.Join("../..", target)) // a directory is a fine target
				return nil, statErr == nil
			}
			anchors[target] = headingAnchors(string(b))
			return anchors[target], true
		}) {
			t.Error(p)
		}
	}
}

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	autoLink   = regexp.MustCompile(`<(https?://[^>]+)>`)
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// linkProblems lists the broken links of file (its path from the root,
// text its content); lookup returns a target file's anchors and whether
// it exists (a path from the root).
func linkProblems(file, text string, lookup func(target string) ([]string, bool)) []string {
	var out []string
	for i, line := range proseLines(text) {
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range autoLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if p := checkLink(file, target, lookup); p != "" {
				out = append(out, fmt.Sprintf("%s:%d: %s", file, i+1, p))
			}
		}
	}
	return out
}

// checkLink returns what is wrong with one link of file, or "".
func checkLink(file, target string, lookup func(string) ([]string, bool)) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		if slices.Contains(externalLinks, target) {
			return ""
		}
		return fmt.Sprintf("link %s leaves the repository (cite it in externalLinks if it must)", target)
	}
	path, anchor, _ := strings.Cut(target, "#")
	resolved := file
	if path != "" {
		resolved = filepath.Clean(filepath.Join(filepath.Dir(file), path))
		if strings.HasPrefix(resolved, "..") {
			return fmt.Sprintf("link %s leaves the repository", target)
		}
	}
	anchors, ok := lookup(resolved)
	if !ok {
		return fmt.Sprintf("link %s: no file %s", target, resolved)
	}
	if anchor != "" && strings.HasSuffix(resolved, ".md") && !slices.Contains(anchors, anchor) {
		return fmt.Sprintf("link %s: %s has no heading with anchor #%s", target, resolved, anchor)
	}
	return ""
}

// proseLines are text's lines with those of fenced code blocks blanked
// (a link or heading inside one is code), so line numbers stay true.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			lines[i] = ""
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors are the anchors GitHub gives text's headings: each
// heading's slug, a repeated one suffixed -1, -2, ….
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		m := mdHeading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: its text as rendered (a link's
// text, no backticks or emphasis), lower case, every character but
// letters, digits, '-', '_' and spaces dropped, each space a '-'.
func slug(heading string) string {
	heading = inlineLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestSlug: GitHub's anchors for headings of this repository's docs.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Pinning: `.lab.lock.hcl`", "pinning-lablockhcl"},
		{"`experiment` — a matrix of cells, each run `repeat` times", "experiment--a-matrix-of-cells-each-run-repeat-times"},
		{"How to read a verdict", "how-to-read-a-verdict"},
		{"Published tables: `published`, and what \"reproduced\" means", "published-tables-published-and-what-reproduced-means"},
		{"FreeBSD's firewall: pf", "freebsds-firewall-pf"},
		{"A [link](x.md) in a heading", "a-link-in-a-heading"},
		{"snake_case and **bold**", "snake_case-and-bold"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

// TestLinkProblems: what the link check finds in a small tree.
func TestLinkProblems(t *testing.T) {
	files := map[string][]string{"docs/a.md": {"intro", "intro-1"}, "README.md": {"lab"}, "examples/q": nil}
	lookup := func(p string) ([]string, bool) { a, ok := files[p]; return a, ok }
	for _, c := range []struct {
		name, text string
		want       int
	}{
		{"fine", "[a](a.md) [b](a.md#intro-1) [r](../README.md#lab) [q](../examples/q) [self](#intro)", 0},
		{"no file", "[x](b.md)", 1},
		{"dead anchor", "[x](a.md#outro)", 1},
		{"outside", "[x](https://example.com) <https://example.org>", 2},
		{"above the root", "[x](../../etc/passwd)", 1},
		{"code is not a link", "`[x](b.md)`\n```\n[y](c.md)\n```", 0},
	} {
		if got := linkProblems("docs/a.md", c.text, lookup); len(got) != c.want {
			t.Errorf("%s: %d problems %q, want %d", c.name, len(got), got, c.want)
		}
	}
}
