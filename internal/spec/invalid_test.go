package spec

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// errorMark is the comment that marks the line an invalid fixture's one
// error must point at.
var errorMark = regexp.MustCompile(`#\s*ERROR:\s*(.+?)\s*$`)

func TestLoadInvalid(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.hcl"))
	if err != nil || len(paths) < 15 {
		t.Fatalf("want at least 15 invalid fixtures, have %d (%v)", len(paths), err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".hcl"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			wantLine, want := 0, ""
			for i, line := range strings.Split(string(src), "\n") {
				if m := errorMark.FindStringSubmatch(line); m != nil {
					if wantLine != 0 {
						t.Fatalf("more than one ERROR mark")
					}
					wantLine, want = i+1, m[1]
				}
			}
			if wantLine == 0 {
				t.Fatalf("no # ERROR: mark")
			}
			l, diags := LoadFiles("", map[string][]byte{path: src}, Options{KnownProviders: []string{"local", "vsphere"},
				// The local back end declares its guests share the host's kernel.
				SharesHostKernel: func(typ string) bool { return typ == "local" }})
			var errs hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			if len(errs) != 1 {
				t.Fatalf("want exactly 1 error %q on line %d, got %d:\n%s", want, wantLine, len(errs), writeDiags(t, l, diags))
			}
			d := errs[0]
			if !strings.Contains(d.Summary, want) {
				t.Errorf("summary %q does not contain %q:\n%s", d.Summary, want, writeDiags(t, l, diags))
			}
			if d.Subject == nil || d.Subject.Start.Line != wantLine || d.Subject.Filename != path {
				t.Errorf("subject %v, want %s line %d:\n%s", d.Subject, path, wantLine, writeDiags(t, l, diags))
			}
			if d.Detail == "" {
				t.Errorf("diagnostic has no detail")
			}
		})
	}
}
