package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteByKind writes to every kind of destination (issue 20, section
// 2): a regular file is replaced, a symlink's target is written and the
// symlink kept, a device, FIFO or /proc file is written through and never
// replaced, a directory or socket is refused — each error naming the path.
func TestWriteByKind(t *testing.T) {
	tests := []struct {
		name string
		// setup returns the path to write and, when the content goes
		// somewhere other than a file to read back, a func returning it.
		setup func(t *testing.T, dir string) (path string, got func() string)
		// wantErr is empty for success, else a substring of the error,
		// which must also name the path.
		wantErr string
		wantIs  error
		// want is the content written (read from the symlink's target,
		// the pipe, the file).
		want string
	}{
		{
			name: "regular file",
			setup: func(t *testing.T, dir string) (string, func() string) {
				return existing("old\n", 0o644)(t, dir), nil
			},
			want: "new\n",
		},
		{
			name: "symlink to a regular file",
			setup: func(t *testing.T, dir string) (string, func() string) {
				target := existing("old\n", 0o644)(t, dir)
				return symlink(t, "f.json", filepath.Join(dir, "link")), readFile(target)
			},
			want: "new\n",
		},
		{
			name: "chain of symlinks, relative, through a symlinked directory",
			setup: func(t *testing.T, dir string) (string, func() string) {
				real := filepath.Join(dir, "real")
				mkdir(t, filepath.Join(real, "sub"))
				symlink(t, "real/sub", filepath.Join(dir, "alias"))
				symlink(t, "../target", filepath.Join(real, "sub", "up")) // ../ of real/sub, not of alias
				return symlink(t, "alias/up", filepath.Join(dir, "link")), readFile(filepath.Join(real, "target"))
			},
			want: "new\n",
		},
		{
			name: "dangling symlink: its target is created",
			setup: func(t *testing.T, dir string) (string, func() string) {
				return symlink(t, "new.json", filepath.Join(dir, "link")), readFile(filepath.Join(dir, "new.json"))
			},
			want: "new\n",
		},
		{
			name: "symlink to /dev/null",
			setup: func(t *testing.T, dir string) (string, func() string) {
				return symlink(t, "/dev/null", filepath.Join(dir, "link")), nil
			},
		},
		{
			name:  "/dev/null",
			setup: func(t *testing.T, dir string) (string, func() string) { return "/dev/null", nil },
		},
		{
			name:    "/dev/full",
			setup:   func(t *testing.T, dir string) (string, func() string) { return "/dev/full", nil },
			wantErr: "no space left on device",
			wantIs:  syscall.ENOSPC,
		},
		{
			name: "FIFO with a reader",
			setup: func(t *testing.T, dir string) (string, func() string) {
				path := filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
				return path, reader(t, func() (io.ReadCloser, error) { return os.Open(path) })
			},
			want: "new\n",
		},
		{
			name: "a pipe through /dev/fd (as /dev/stdout is)",
			setup: func(t *testing.T, dir string) (string, func() string) {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { w.Close() })
				got := reader(t, func() (io.ReadCloser, error) { return r, nil })
				return symlink(t, fmt.Sprintf("/dev/fd/%d", w.Fd()), filepath.Join(dir, "stdout")), func() string {
					w.Close()
					return got()
				}
			},
			want: "new\n",
		},
		{
			name: "a file open for appending, through /proc/self/fd",
			setup: func(t *testing.T, dir string) (string, func() string) {
				path := existing("old\n", 0o644)(t, dir)
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { f.Close() })
				return fmt.Sprintf("/proc/self/fd/%d", f.Fd()), readFile(path)
			},
			want: "old\nnew\n", // the file itself, not a new one renamed over it
		},
		{
			name: "directory",
			setup: func(t *testing.T, dir string) (string, func() string) {
				path := filepath.Join(dir, "d")
				mkdir(t, path)
				return path, nil
			},
			wantErr: "is a directory",
		},
		{
			name: "symlink to a directory",
			setup: func(t *testing.T, dir string) (string, func() string) {
				mkdir(t, filepath.Join(dir, "d"))
				return symlink(t, "d", filepath.Join(dir, "link")), nil
			},
			wantErr: "is a symlink to ",
		},
		{
			name: "socket",
			setup: func(t *testing.T, dir string) (string, func() string) {
				path := filepath.Join(dir, "sock")
				l, err := net.Listen("unix", path)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return path, nil
			},
			wantErr: "is a socket",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path, got := tt.setup(t, dir)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			var target os.FileInfo
			if before.Mode()&fs.ModeSymlink != 0 {
				target, _ = os.Stat(path)
			}

			err = WriteFunc(path, 0o600, content("new\n"))

			assertNoTemps(t, dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %v: want one containing %q and the path %s", err, tt.wantErr, path)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("error %v does not wrap %v", err, tt.wantIs)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			// Whatever path was, it still is: WriteFunc never renames a
			// file over anything but a regular file.
			after, err := os.Lstat(path)
			if err != nil {
				t.Fatalf("%s is gone: %v", path, err)
			}
			if before.Mode().Type() != after.Mode().Type() {
				t.Errorf("%s was %v, is now %v", path, before.Mode().Type(), after.Mode().Type())
			}
			if !before.Mode().IsRegular() && !os.SameFile(before, after) {
				t.Errorf("%s was replaced by another file", path)
			}
			if target != nil {
				if now, err := os.Stat(path); err != nil || now.Mode().Type() != target.Mode().Type() {
					t.Errorf("the symlink's target was %v, is now %v (%v)", target.Mode().Type(), now, err)
				}
			}
			if tt.wantErr != "" {
				return
			}
			if got == nil && before.Mode().IsRegular() {
				got = readFile(path)
			}
			if got != nil {
				if s := got(); s != tt.want {
					t.Errorf("content = %q, want %q", s, tt.want)
				}
			}
		})
	}
	for _, dev := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device: %v %v", dev, fi, err)
		}
	}
}

// TestPrepareRefusesNonRegular: Prepare and Commit, the state's writers,
// and Replace,
// replace regular files only; anything else is an error naming the path
// and left as it was.
func TestPrepareRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	existing("old\n", 0o644)(t, dir)
	mkdir(t, filepath.Join(dir, "d"))
	tests := map[string]string{
		"/dev/null":                         "character device",
		fifo:                                "FIFO",
		filepath.Join(dir, "d"):             "directory",
		symlink(t, "f.json", dir+"/link"):   "symlink",
		symlink(t, "/dev/null", dir+"/dev"): "symlink",
	}
	for path, kind := range tests {
		before, _ := os.Lstat(path)
		p, err := Prepare(path, 0o600, content("new\n"))
		if err == nil {
			p.Discard()
			t.Errorf("Prepare(%s) succeeded", path)
		} else if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is a "+kind+", not a regular file") {
			t.Errorf("Prepare(%s): %v, want it to name the path and %q", path, err, kind)
		}
		err = Replace(path, 0o600, content("new\n"))
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is a "+kind+", not a regular file") {
			t.Errorf("Replace(%s): %v, want it to name the path and %q", path, err, kind)
		}
		if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) {
			t.Errorf("%s changed: %v", path, err)
		}
	}
	assertNoTemps(t, dir)
	if got, _ := os.ReadFile(filepath.Join(dir, "f.json")); string(got) != "old\n" {
		t.Errorf("the symlink's target was written: %q", got)
	}
}

// TestCommitRefusesReplacedDestination: a destination made a symlink
// between Prepare and Commit is not renamed over.
func TestCommitRefusesReplacedDestination(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	p, err := Prepare(path, 0o600, content("new\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Discard()
	symlink(t, "/dev/null", path)
	if err := p.Commit(); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("Commit over a symlink: %v", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi, err)
	}
}

func TestIsTemp(t *testing.T) {
	tests := []struct {
		file string
		want bool
	}{
		{".state.json.tmp-123456", true},
		{".state.json.tmp-", false},
		{".state.json.tmp-12a", false},
		{"state.json.tmp-123", false},
		{".state.json.backup.tmp-1", false},
		{".state.json.tmp-1/x", false},
	}
	for _, tt := range tests {
		if got := IsTemp(tt.file, "state.json"); got != tt.want {
			t.Errorf("IsTemp(%q) = %t, want %t", tt.file, got, tt.want)
		}
	}
	for file, want := range map[string]string{".run.json.tmp-9": "run.json", ".r12.json.tmp-0": "r12.json", ".tmp-1": "", "..tmp-1": "", "x.tmp-1": ""} {
		if got, ok := TempOf(file); got != want || ok != (want != "") {
			t.Errorf("TempOf(%q) = %q, %t; want %q", file, got, ok, want)
		}
	}
	// What os.CreateTemp makes matches.
	f, err := os.CreateTemp(t.TempDir(), TempPattern("state.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !IsTemp(filepath.Base(f.Name()), "state.json") {
		t.Errorf("IsTemp(%q) = false for os.CreateTemp's name", filepath.Base(f.Name()))
	}
}

func symlink(t *testing.T, target, path string) string {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func readFile(path string) func() string {
	return func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
}

// reader opens a reader in the background (a FIFO's open waits for a
// writer) and returns what it read once the writer is done.
func reader(t *testing.T, open func() (io.ReadCloser, error)) func() string {
	done := make(chan string, 1)
	go func() {
		r, err := open()
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- string(b)
	}()
	return func() string { return <-done }
}
