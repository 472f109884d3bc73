// Package golden checks test output against golden files: files under a
// package's testdata/ directory that hold the output a test expects.
//
// A test calls Check with the file's path and what it produced. Run with
// -update (go test ./pkg -update), Check writes the output to the file
// instead, to be reviewed with git diff and committed.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/atomicfile"
)

var update = flag.Bool("update", false, "rewrite golden files with what the tests produce")

// Update reports whether the tests run with -update, for a test that keeps
// an artefact other than through Check (a rendered image, say).
func Update() bool { return *update }

// Check fails t unless got equals the content of the golden file at path,
// showing where they differ. With -update it writes got to path (creating
// its directory) and does not compare.
func Check[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := atomicfile.Write(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
		return
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("%s differs from the output (- golden, + got; go test -update accepts the output):\n%s",
			path, diff(string(want), string(got)))
	}
}

// context is how many equal lines diff shows around each change.
const context = 2

// maxCells bounds the size of diff's table (lines of a times lines of b);
// past it diff shows both texts whole rather than use much memory.
const maxCells = 4 << 20

// diff returns a line diff turning a into b: removed lines start with "-",
// added ones with "+", and equal lines near a change with " "; "@@ line N"
// starts each group of changes (N counts lines of a). Two equal texts give "".
func diff(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := lines(a), lines(b)
	if len(al)*len(bl) > maxCells {
		return "--- golden\n" + a + "\n--- got\n" + b + "\n"
	}
	ops := editScript(al, bl)

	var out strings.Builder
	lastShown := -1 // index in ops of the last op written
	for i, op := range ops {
		if op.kind == ' ' {
			continue
		}
		start := max(i-context, lastShown+1)
		if start > lastShown+1 || lastShown < 0 {
			fmt.Fprintf(&out, "@@ line %d\n", ops[start].line+1)
		}
		for j := start; j < i; j++ {
			out.WriteString(ops[j].String())
		}
		out.WriteString(op.String())
		lastShown = i
		// Trailing context, as far as the next change allows.
		for j := i + 1; j <= i+context && j < len(ops) && ops[j].kind == ' '; j++ {
			out.WriteString(ops[j].String())
			lastShown = j
		}
	}
	return out.String()
}

// lines splits s into lines, marking a missing final newline so that it
// shows in a diff.
func lines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	if n := len(l); n > 0 && !strings.HasSuffix(l[n-1], "\n") {
		l[n-1] += "\n\\ no newline at end\n"
	}
	return l
}

// op is one line of an edit script.
type op struct {
	kind byte   // ' ' equal, '-' only in a, '+' only in b
	text string // the line, with its newline
	line int    // index of the line in a (of the next line of a for '+')
}

func (o op) String() string { return string(o.kind) + o.text }

// editScript returns a shortest edit script from a to b, from the table of
// the longest common subsequences of their suffixes.
func editScript(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i], i})
			i++
		default:
			ops = append(ops, op{'+', b[j], i})
			j++
		}
	}
	return ops
}
