package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errDiskFull = errors.New("disk full")

func TestWrite(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares dir and returns the path to write.
		setup func(t *testing.T, dir string) string
		fill  func(w io.Writer) error
		perm  os.FileMode
		// wantErr is empty for success, else a substring of the error.
		wantErr string
		// wantIs, if set, must be in the error's chain.
		wantIs error
		// want is the destination's content afterwards ("" for none).
		want string
	}{
		{
			name:  "new file",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "f.json") },
			fill:  content("new\n"),
			perm:  0o644,
			want:  "new\n",
		},
		{
			name:  "replaces existing file and its mode",
			setup: existing("old\n", 0o644),
			fill:  content("new\n"),
			perm:  0o600,
			want:  "new\n",
		},
		{
			name:  "empty content",
			setup: existing("old\n", 0o644),
			fill:  content(""),
			perm:  0o644,
		},
		{
			name:    "directory does not exist",
			setup:   func(t *testing.T, dir string) string { return filepath.Join(dir, "missing", "f.json") },
			fill:    content("new\n"),
			perm:    0o644,
			wantErr: "no such file or directory",
			wantIs:  os.ErrNotExist,
		},
		{
			name:  "fill fails half-way",
			setup: existing("old\n", 0o640),
			fill: func(w io.Writer) error {
				if _, err := io.WriteString(w, "half"); err != nil {
					return err
				}
				return errDiskFull
			},
			perm:    0o644,
			wantErr: "disk full",
			wantIs:  errDiskFull,
			want:    "old\n",
		},
		{
			name: "destination is a directory",
			setup: func(t *testing.T, dir string) string {
				path := filepath.Join(dir, "d")
				if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
					t.Fatal(err)
				}
				return path
			},
			fill:    content("new\n"),
			perm:    0o644,
			wantErr: "write ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			before, beforeErr := os.ReadFile(path)
			beforeInfo, _ := os.Stat(path)

			err := WriteFunc(path, tt.perm, tt.fill)

			assertNoTemps(t, dir)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatal("WriteFunc succeeded, want an error")
				}
				if !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %q: want it to contain %q and the path %s", err, tt.wantErr, path)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("error %q does not wrap %v", err, tt.wantIs)
				}
				// The destination, if it was a file, is as it was.
				after, afterErr := os.ReadFile(path)
				if string(after) != string(before) || (afterErr == nil) != (beforeErr == nil) {
					t.Errorf("destination changed by a failed write: %q (%v), was %q (%v)", after, afterErr, before, beforeErr)
				}
				if beforeInfo != nil {
					if fi, err := os.Stat(path); err != nil || fi.Mode() != beforeInfo.Mode() {
						t.Errorf("destination mode changed by a failed write: %v (%v), was %v", fi.Mode(), err, beforeInfo.Mode())
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("content = %q, want %q", got, tt.want)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.perm {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.perm)
			}
		})
	}
}

func TestWriteBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := Write(path, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "data" {
		t.Errorf("content = %q, want %q", got, "data")
	}
}

// TestPendingDiscard checks that content prepared but not committed never
// reaches the destination and leaves nothing behind.
func TestPendingDiscard(t *testing.T) {
	dir := t.TempDir()
	path := existing("old\n", 0o644)(t, dir)
	p, err := Prepare(path, 0o600, content("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("destination = %q before Commit, want the old content", got)
	}
	p.Discard()
	p.Discard() // a second call is harmless
	assertNoTemps(t, dir)
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("destination = %q after Discard, want the old content", got)
	}
}

// TestPendingCommitThenDiscard checks the deferred Discard after a Commit
// leaves the new file alone.
func TestPendingCommitThenDiscard(t *testing.T) {
	dir := t.TempDir()
	path := existing("old\n", 0o644)(t, dir)
	p, err := Prepare(path, 0o600, content("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	p.Discard()
	if got, _ := os.ReadFile(path); string(got) != "new\n" {
		t.Errorf("destination = %q, want the new content", got)
	}
	assertNoTemps(t, dir)
}

// TestWriteFillPanics checks a panic while filling the file leaves no
// temporary file behind and the destination as it was.
func TestWriteFillPanics(t *testing.T) {
	dir := t.TempDir()
	path := existing("old\n", 0o644)(t, dir)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach the caller")
			}
		}()
		WriteFunc(path, 0o644, func(w io.Writer) error {
			io.WriteString(w, "half")
			panic("fill broke")
		})
	}()
	assertNoTemps(t, dir)
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("destination = %q, want the old content", got)
	}
}

func content(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func existing(data string, perm os.FileMode) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(data), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, perm); err != nil { // whatever the umask
			t.Fatal(err)
		}
		return path
	}
}

// assertNoTemps fails if any temporary file is left anywhere under dir.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", path)
		}
		return nil
	})
}
