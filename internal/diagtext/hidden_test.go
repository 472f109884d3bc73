package diagtext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestHiddenSource: a lab file that is a symbolic link out of the lab
// directory, into /etc or nowhere has its source withheld, with the
// reason; NewWriter asks HiddenSource of every file it shows, so the
// error still names the file and line but prints none of its lines.
func TestHiddenSource(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("root:$6$SECRETHASH:19000:0:99999:7:::\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target string // target "" is a regular file in the directory
		hidden       string
	}{
		{"regular file", "", ""},
		{"link inside the directory", "sub/secret", ""},
		{"link outside the directory", outside, "it is a symbolic link to a file outside the lab directory"},
		{"relative link outside", "../secret", "it is a symbolic link to a file outside the lab directory"},
		{"link into /etc", "/etc/passwd", "it is a symbolic link into /etc"},
		{"dangling link", "/nonexistent/x.hcl", "it is a symbolic link that does not resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(filepath.Dir(outside), "lab")
			if tt.target != "" && !strings.HasPrefix(tt.target, "/") && !strings.HasPrefix(tt.target, "../") {
				dir = t.TempDir()
				if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tt.target), []byte("root:$6$SECRETHASH:19000\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(filepath.Join(filepath.Dir(outside), "lab")) })
			name := filepath.Join(dir, "main.hcl")
			var err error
			if tt.target == "" {
				err = os.WriteFile(name, []byte("root:$6$SECRETHASH:19000\n"), 0o600)
			} else {
				err = os.Symlink(tt.target, name)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := HiddenSource(dir, name); got != tt.hidden {
				t.Fatalf("HiddenSource = %q, want %q", got, tt.hidden)
			}
			// What the loader would have read (a dangling link reads as
			// nothing): the writer must not show it when the link is hidden.
			src, _ := os.ReadFile(name)
			files := map[string]*hcl.File{name: {Bytes: src}}
			d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Argument or block definition required",
				Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: 5, Byte: 4}}}
			var b strings.Builder
			if err := NewWriter(&b, files, 0, false).WriteDiagnostic(d); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !strings.Contains(out, "on "+name+" line 1") {
				t.Errorf("the error does not name the file and line:\n%s", out)
			}
			switch {
			case tt.hidden == "" && len(src) > 0 && !strings.Contains(out, "SECRETHASH"):
				t.Errorf("source of a file inside the lab directory not shown:\n%s", out)
			case tt.hidden != "" && strings.Contains(out, "SECRETHASH"), tt.hidden != "" && strings.Contains(out, "root:"):
				t.Errorf("source of a hidden file printed:\n%s", out)
			case tt.hidden != "" && !strings.Contains(out, "(source not shown: "+tt.hidden+")"):
				t.Errorf("no reason given:\n%s", out)
			}
		})
	}
}
