package tools_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
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

// TestVersionCommands pins the version commands the tools declare, in the
// order a back end's template identity lists their lines (the default
// tool first): a change here changes every recorded template identity, so
// it is made on purpose.
func TestVersionCommands(t *testing.T) {
	for _, tc := range []struct {
		tools []string
		want  [][]string
	}{
		{nil, [][]string{{"iperf3", "--version"}, {"iperf", "-v"}, {"netperf", "-V"}}},
		{[]string{bench.DefaultTool}, [][]string{{"iperf3", "--version"}}},
		{[]string{"netperf", "iperf3", "nosuch"}, [][]string{{"iperf3", "--version"}, {"netperf", "-V"}}},
	} {
		if got := bench.VersionCommands(tc.tools...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("VersionCommands(%q) = %q, want %q", tc.tools, got, tc.want)
		}
	}
}
