// Package udiff writes the difference between two texts as a unified diff
// (the format of diff -u and git diff), for lab fmt -diff.
package udiff

import (
	"fmt"
	"io"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// maxDiffCells bounds the LCS table (lines of a × lines of b); past it
// the diff replaces the whole text.
const maxDiffCells = 4 << 20

// edit is one line of a diff: ' ' kept, '-' removed, '+' added.
type edit struct {
	op   byte
	line string
}

// Write writes the change from a to b as a unified diff of the file name
// ("--- a/name", "+++ b/name", "@@ -l,n +l,n @@" hunks).
func Write(w io.Writer, name, a, b string) {
	edits := lineEdits(splitLines(a), splitLines(b))
	fmt.Fprintf(w, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks(edits) {
		writeHunk(w, edits, h)
	}
}

func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // s ends with a newline, or is empty
	}
	return lines
}

// lineEdits turns a into b with a longest common subsequence of lines.
func lineEdits(a, b []string) []edit {
	if len(a)*len(b) > maxDiffCells {
		var out []edit
		for _, l := range a {
			out = append(out, edit{'-', l})
		}
		for _, l := range b {
			out = append(out, edit{'+', l})
		}
		return out
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	return out
}

// hunk is a range of edits [from, to).
type hunk struct{ from, to int }

// hunks groups the changes with their context, merging hunks whose
// context would overlap.
func hunks(edits []edit) []hunk {
	var out []hunk
	for i, e := range edits {
		if e.op == ' ' {
			continue
		}
		from, to := max(0, i-diffContext), min(len(edits), i+diffContext+1)
		if n := len(out); n > 0 && from <= out[n-1].to {
			out[n-1].to = to
			continue
		}
		out = append(out, hunk{from, to})
	}
	return out
}

// writeHunk writes one hunk with its header (line numbers from 1).
func writeHunk(w io.Writer, edits []edit, h hunk) {
	aLine, bLine := 1, 1
	for _, e := range edits[:h.from] {
		if e.op != '+' {
			aLine++
		}
		if e.op != '-' {
			bLine++
		}
	}
	aN, bN := 0, 0
	for _, e := range edits[h.from:h.to] {
		if e.op != '+' {
			aN++
		}
		if e.op != '-' {
			bN++
		}
	}
	fmt.Fprintf(w, "@@ -%d,%d +%d,%d @@\n", aLine, aN, bLine, bN)
	for _, e := range edits[h.from:h.to] {
		line := e.line
		if !strings.HasSuffix(line, "\n") {
			line += "\n\\ No newline at end of file\n"
		}
		fmt.Fprintf(w, "%c%s", e.op, line)
	}
}
