package operation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/golden"
)

// fmtView is a FmtView writing a transcript.
type fmtView struct{ recView }

func (v *fmtView) List(name string) { v.say("list %s", name) }
func (v *fmtView) Diff(name string, src, out []byte) {
	v.say("diff %s: %d → %d bytes", name, len(src), len(out))
}
func (v *fmtView) Formatted(out []byte) error { v.say("formatted:\n%s", out); return nil }
func (v *fmtView) Diagnostics(sources map[string]*hcl.File, diags hcl.Diagnostics) {
	for _, d := range diags {
		v.say("diagnostic %s: %s (source kept: %v)", d.Subject, d.Summary, sources[d.Subject.Filename] != nil)
	}
}

// TestFmtVerb: fmt, one operation call, on a lab directory holding a
// messy lab.hcl, a formatted one.labvars and a messy sub/two.hcl: it
// rewrites, lists, diffs, checks (ErrUnformatted, nothing written),
// descends with Recursive, reports a syntax error once every file was
// seen (ErrReported, the file left alone) and formats standard input.
// The golden file is the view's transcript and then every file.
func TestFmtVerb(t *testing.T) {
	messy := "lab \"x\" {}\ntemplate \"t\" {\n  source=\"debian-12\"\n      os = \"debian\"\n}\n"
	for _, tc := range []struct {
		name    string
		args    FmtArgs
		broken  bool
		wantErr error
	}{
		{name: "write", args: FmtArgs{List: true}},
		{name: "check", args: FmtArgs{Check: true, List: true}, wantErr: ErrUnformatted},
		{name: "diff", args: FmtArgs{Check: true, Diff: true}, wantErr: ErrUnformatted},
		{name: "recursive", args: FmtArgs{List: true, Recursive: true}},
		{name: "named", args: FmtArgs{List: true, Targets: []string{"sub/two.hcl", "one.labvars"}}},
		{name: "syntax", args: FmtArgs{List: true}, broken: true, wantErr: ErrReported},
		{name: "stdin", args: FmtArgs{Stdin: strings.NewReader(messy)}},
		{name: "stdin-check", args: FmtArgs{Stdin: strings.NewReader(messy), Check: true}, wantErr: ErrUnformatted},
		{name: "stdin-diff", args: FmtArgs{Stdin: strings.NewReader(messy), Diff: true}},
		{name: "stdin-syntax", args: FmtArgs{Stdin: strings.NewReader("lab {")}, wantErr: ErrReported},
		{name: "missing", args: FmtArgs{Targets: []string{"nothing.hcl"}}, wantErr: os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := newOp(t, messy)
			files := map[string]string{"lab.hcl": messy, "one.labvars": "region = \"a\"\n", "sub/two.hcl": messy}
			if tc.broken {
				files["sub/bad.hcl"] = "lab {"
				tc.args.Targets = []string{".", "sub"}
			}
			for name, src := range files {
				path := filepath.Join(o.Dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v := &fmtView{}
			if err := o.Fmt(tc.args, v); !errors.Is(err, tc.wantErr) {
				t.Errorf("Fmt = %v, want %v", err, tc.wantErr)
			}
			var names []string
			for name := range files {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				b, err := os.ReadFile(filepath.Join(o.Dir, name))
				if err != nil {
					t.Fatal(err)
				}
				v.say("%s", fmt.Sprintf("== %s\n%s", name, b))
			}
			golden.Check(t, filepath.Join("testdata", "fmtverb", tc.name+".golden"), v.transcript(o.Dir))
		})
	}
}
