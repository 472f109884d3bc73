package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/lab-bench/lab/bench/tools"
)

// TestEveryToolImported checks that every package under bench/ that
// registers a tool is imported here, so that a new tool's package is not
// left out of the spec language by a missing import line.
func TestEveryToolImported(t *testing.T) {
	src, err := os.ReadFile("tools.go")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var registering []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "bench.Register(") && !strings.HasSuffix(f, "_test.go") {
			registering = append(registering, filepath.Base(filepath.Dir(f)))
		}
	}
	for _, pkg := range registering {
		if !strings.Contains(string(src), `"github.com/lab-bench/lab/bench/`+pkg+`"`) {
			t.Errorf("bench/%s registers a tool but bench/tools does not import it: add the import line to tools.go", pkg)
		}
	}
}
