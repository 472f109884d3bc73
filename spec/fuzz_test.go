package spec

import (
	"os"
	"path/filepath"
	"testing"

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
		l, diags := LoadFiles(map[string][]byte{"main.hcl": src}, Options{})
		if l == nil || l.Files == nil {
			t.Fatal("nil lab")
		}
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("diagnostic without a range: %s: %s", d.Summary, d.Detail)
			}
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
