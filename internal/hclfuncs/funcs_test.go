package hclfuncs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestFile: file() reads a regular UTF-8 file of at most the limit,
// relative to the lab directory, and refuses anything else by name,
// without reading (and so without blocking on) a FIFO or a device.
func TestFile(t *testing.T) {
	const limit = 64
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("exact.txt", strings.Repeat("a", limit))
	over := write("over.txt", strings.Repeat("a", limit+1))
	latin1 := write("latin1.txt", "caf\xe9")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	tests := []struct {
		path, want, err string
	}{
		{"exact.txt", strings.Repeat("a", limit), ""},
		{over, "", over + " is larger than 64 bytes"},
		{latin1, "", latin1 + " is not valid UTF-8"},
		{fifo, "", fifo + " is not a regular file"},
		{"/dev/zero", "", "/dev/zero is not a regular file"},
		{dir, "", dir + " is not a regular file"},
		{"missing.txt", "", "no such file or directory"},
	}
	file := Table(dir, nil, limit)["file"]
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			v, err := file.Call([]cty.Value{cty.StringVal(tt.path)})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("file(%q) = %#v, %v; want an error with %q", tt.path, v, err, tt.err)
				}
				return
			}
			if err != nil || v.AsString() != tt.want {
				t.Fatalf("file(%q) = %#v, %v", tt.path, v, err)
			}
		})
	}
}

// TestEnv: env() reads the environment it was given, the last setting of
// a name winning, "" for a name not set.
func TestEnv(t *testing.T) {
	env := Table("", []string{"WHO=me", "X=1", "X=2", "NOEQUALS"}, 1)["env"]
	for name, want := range map[string]string{"WHO": "me", "X": "2", "NOEQUALS": "", "UNSET": ""} {
		v, err := env.Call([]cty.Value{cty.StringVal(name)})
		if err != nil || v.AsString() != want {
			t.Errorf("env(%q) = %#v, %v; want %q", name, v, err, want)
		}
	}
}
