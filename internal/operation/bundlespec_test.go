package operation

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
)

func TestQuoteNames(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"notes.txt", ".lab/"}, "notes.txt, .lab/"},
		{[]string{"a b", "x,y", "ok"}, `"a b", "x,y", ok`},
		{[]string{"\x1b[2Jclear", "tab\there"}, `"\x1b[2Jclear", "tab\there"`},
	} {
		if got := QuoteNames(tt.names); got != tt.want {
			t.Errorf("QuoteNames(%q) = %s, want %s", tt.names, got, tt.want)
		}
	}
}

// TestCopyBundleSpec copies a bundle's spec: the *.hcl files and the
// variables file, a line naming what it left out, and the variables file
// first (absolute) in the -var-file list, the user's after it.
func TestCopyBundleSpec(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, bundle.SpecDir)
	for name, body := range map[string]string{"lab.hcl": "lab \"b\" {}\n", "published.labvars": "x = 1\n", "notes txt": "hi\n"} {
		if err := os.MkdirAll(spec, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(spec, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(spec, ".lab"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		varFile string
		user    []string
	}{
		{"published.labvars", []string{"mine.labvars"}},
		{"", []string{"mine.labvars"}},
	} {
		work := t.TempDir()
		var out bytes.Buffer
		files, err := CopyBundleSpec(work, dir, bundle.Info{VarFile: tt.varFile}, tt.user, &out)
		if err != nil {
			t.Fatal(err)
		}
		want := tt.user
		if tt.varFile != "" {
			want = append([]string{filepath.Join(work, tt.varFile)}, tt.user...)
		}
		if !reflect.DeepEqual(files, want) {
			t.Errorf("var files %q, want %q", files, want)
		}
		ignored := `Ignored in the bundle's spec/ (a spec needs only *.hcl, .lab.lock.hcl and its variables file): .lab/, "notes txt"` + "\n"
		if tt.varFile == "" {
			ignored = `Ignored in the bundle's spec/ (a spec needs only *.hcl, .lab.lock.hcl and its variables file): .lab/, "notes txt", published.labvars` + "\n"
		}
		if out.String() != ignored {
			t.Errorf("printed %q, want %q", out.String(), ignored)
		}
		if _, err := os.Stat(filepath.Join(work, "lab.hcl")); err != nil {
			t.Error(err)
		}
	}
	if _, err := CopyBundleSpec(t.TempDir(), t.TempDir(), bundle.Info{}, nil, &bytes.Buffer{}); err == nil {
		t.Error("a bundle without spec/ was copied")
	}
}

// TestReachesLine is the line apply prints before approving a bundle.
func TestReachesLine(t *testing.T) {
	l := reachLab(t, "bhyve.b", "provider \"bhyve\" \"b\" {\n  host   = \"192.0.2.5\"\n  switch = \"public\"\n}")
	provs, diags := (&Operation{}).NewProviders(context.Background(), l)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got, want := ReachesLine(l, provs), "\nThis bundle will connect to: bhyve.b root@192.0.2.5:22.\n"; got != want {
		t.Errorf("ReachesLine = %q, want %q", got, want)
	}
}
