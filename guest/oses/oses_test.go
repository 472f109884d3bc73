package oses_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	_ "github.com/lab-bench/lab/guest/oses"
)

// TestEveryOSImported checks that every package under guest/ that
// registers a guest OS is imported by oses.go, so that a new OS is not
// left out of cmd/lab (and of providertest's suite) by a missing import
// line.
func TestEveryOSImported(t *testing.T) {
	src, err := os.ReadFile("oses.go")
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
		if strings.Contains(string(b), "guest.Register(") && !strings.HasSuffix(f, "_test.go") {
			registering = append(registering, filepath.Base(filepath.Dir(f)))
		}
	}
	if len(registering) == 0 {
		t.Fatal("no package under guest/ calls guest.Register: is the test reading the tree it should?")
	}
	for _, pkg := range registering {
		if !strings.Contains(string(src), `"github.com/lab-bench/lab/guest/`+pkg+`"`) {
			t.Errorf("guest/%s registers a guest OS but guest/oses does not import it: add the import line to oses.go", pkg)
		} else if !guest.Registered(pkg) {
			t.Errorf("guest/%s is imported but no guest os %q is registered: the package names its OS", pkg, pkg)
		}
	}
}
