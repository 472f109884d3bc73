package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/state"
)

// TestLoadFormats: a saved plan keeps its template identities; a format 2
// file (before Templates) still loads, without them; other formats are
// refused with a message saying what to do.
func TestLoadFormats(t *testing.T) {
	p, diags := New(load(t, twoShapes), &state.State{Lineage: "a", Serial: 3}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p.Templates = map[string]string{"pair.x.server": "instance-uuid u change-version 1"}
	dir := t.TempDir()
	path := filepath.Join(dir, "plan")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil || got.Format != Format || got.Templates["pair.x.server"] != p.Templates["pair.x.server"] {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	b, _ := os.ReadFile(path)
	for _, tc := range []struct {
		format, want string
	}{{`"format": 2`, ""}, {`"format": 1`, "plan format 1, this lab reads formats 2 and 3: run `lab plan -out` again"}, {`"format": 4`, "plan format 4"}} {
		old := strings.Replace(string(b), `"format": 3`, tc.format, 1)
		old = strings.Replace(old, `"templates"`, `"templates_unknown"`, 1)
		if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if tc.want == "" && (err != nil || got.Format != Format || len(got.Templates) != 0) || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Load = %v, want %q", tc.format, err, tc.want)
		}
	}
}
