package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/zclconf/go-cty/cty"
)

// FuzzLoad feeds LoadFiles arbitrary single files, seeded with every
// fixture: it must never panic, and must always return a lab.
func FuzzLoad(f *testing.F) {
	for _, pattern := range []string{"testdata/valid/*/*.hcl", "testdata/invalid/*.hcl"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(bigLab))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, diags := LoadFiles("", map[string][]byte{"main.hcl": src}, Options{})
		if l == nil || l.Files == nil {
			t.Fatal("nil lab")
		}
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("diagnostic without a range: %s: %s", d.Summary, d.Detail)
			}
		}
		// What the diagnostics print carries no control byte of the spec
		// (only the writer's own color codes, here none) and is bounded.
		var b strings.Builder
		if err := l.WriteDiagnostics(&b, diags, 0, false); err != nil {
			t.Fatal(err)
		}
		for i, r := range b.String() {
			if r != '\n' && r != '\t' && diagtext.EscapeText(string(r), false) != string(r) {
				t.Fatalf("unescaped %q at byte %d of the diagnostics", r, i)
			}
		}
		if max := (len(diags) + 1) * (diagtext.MaxSnippetLines*2*(diagtext.MaxSnippetWidth*6+16) + 4096); b.Len() > max {
			t.Fatalf("%d bytes of diagnostics for %d diagnostics", b.Len(), len(diags))
		}
		if diags.HasErrors() {
			return
		}
		// A lab that loads must evaluate its first cell without panicking.
		for _, e := range l.Experiments {
			first := map[string]cty.Value{}
			for _, d := range e.Matrix {
				first[d.Name] = d.Values[0]
			}
			e.Eval(first)
		}
	})
}
