package atomicfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutput: "" writes through to stdout; a path gets nothing until
// Commit, then all of it; a symlinked path is written through and named
// with its target.
func TestOutput(t *testing.T) {
	var stdout bytes.Buffer
	o := NewOutput("", &stdout)
	if _, err := o.Write([]byte("table\n")); err != nil {
		t.Fatal(err)
	}
	if where, err := o.Commit(); err != nil || where != "" || stdout.String() != "table\n" || o.ToFile() {
		t.Errorf("stdout: %q, %q, %v", stdout.String(), where, err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "cmp.html")
	o = NewOutput(path, &stdout)
	if _, err := o.Write([]byte("<html>")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file exists before Commit: %v", err)
	}
	if where, err := o.Commit(); err != nil || where != path {
		t.Fatalf("commit: %q, %v", where, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "<html>" || stdout.String() != "table\n" {
		t.Errorf("file %q, stdout %q", b, stdout.String())
	}
	link := filepath.Join(dir, "latest.html")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	o = NewOutput(link, &stdout)
	o.Write([]byte("new"))
	if where, err := o.Commit(); err != nil || !strings.Contains(where, "the target of the symlink "+link) {
		t.Errorf("via symlink: %q, %v", where, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}
