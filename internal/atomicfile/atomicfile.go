// Package atomicfile replaces files atomically: a reader of the destination
// sees either the old content or the whole new content, never a part, and a
// failed write leaves the old file as it was.
//
// The new content goes to a temporary file in the destination's directory
// (so the final rename stays on one file system), which is given its mode,
// filled, synced and closed, then renamed over the destination; the
// directory is synced last so that the rename itself survives a crash. The
// temporary file is removed on any failure. Its name is TempPattern's: a
// dot, the destination's name, ".tmp-" and random digits (see IsTemp).
//
// Write and WriteFunc, the writers of paths a user may name (`-out`, `-o`),
// decide by what the destination is (see WriteFunc): only a regular file,
// or nothing, is replaced by a rename; a symlink is followed and its target
// written; a device, FIFO or socket is written through, never replaced. Prepare
// and Commit, for files lab owns (the state), replace regular files only.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// WriteFunc replaces path with the content fill writes, with mode perm, by
// what path is:
//
//   - nothing, or a regular file: atomically, through a temporary file
//     renamed over it (the package's contract);
//   - a symlink (or a chain of them): its final target is written by these
//     same rules, and the symlink stays as it was — as a shell's `>` and
//     cp(1) do. A dangling symlink's target is created;
//   - a character or block device, a FIFO, or a file reached through
//     /proc (/dev/stdout, /dev/fd/N): written through, opened for writing
//     only (appending, never truncated, created or renamed over, perm not
//     applied). There is no old content to keep, so a failed write may
//     leave a part written; every write error is returned, naming path
//     (/dev/full gives "no space left on device"). Opening a FIFO waits
//     for its reader, as a shell's `>` does;
//   - a directory or a socket: an error naming path and what it is.
//
// fill's error aborts the write and is returned, wrapped.
func WriteFunc(path string, perm os.FileMode, fill func(io.Writer) error) error {
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	switch target.Kind {
	case Device, Proc:
		return writeThrough(path, fill)
	case Directory, Socket:
		return fmt.Errorf("write %s: %s", path, target.Kind.describe(target.Linked, target.Path))
	}
	p, err := prepare(target.Path, perm, fill)
	if err != nil {
		return linkedErr(err, path, target)
	}
	defer p.Discard()
	return linkedErr(p.Commit(), path, target)
}

// Write is WriteFunc with data as the content.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// linkedErr names the symlink the caller gave in an error about its target.
func linkedErr(err error, path string, target Target) error {
	if err == nil || !target.Linked {
		return err
	}
	return fmt.Errorf("through the symlink %s: %w", path, err)
}

// Kind is what a destination is, as WriteFunc tells them apart.
type Kind int

// The kinds of destination.
const (
	Missing   Kind = iota // nothing there yet: created
	Regular               // a regular file: replaced atomically
	Device                // a character or block device, or a FIFO: written through
	Proc                  // a file reached through /proc (/dev/stdout): written through
	Directory             // refused
	Socket                // refused
)

func (k Kind) describe(viaLink bool, target string) string {
	what := map[Kind]string{Directory: "is a directory", Socket: "is a socket"}[k]
	if viaLink {
		what = "is a symlink to " + target + ", which " + what
	}
	return what + ", not a file lab can write"
}

// Target is where WriteFunc writes for a path: the path after following
// every symlink (the path itself when it is none), and what is there.
type Target struct {
	Path string
	Kind Kind
	// Linked is true when path was a symlink, and Path its final target.
	Linked bool
}

// maxLinks bounds a chain of symlinks, as the kernel's ELOOP does (40).
const maxLinks = 40

// Resolve follows path's symlinks to the file WriteFunc writes, and says
// what it is. A path into /proc (the target of /dev/stdout is
// /proc/self/fd/1, whose own target may be "pipe:[123]", no path at all)
// is not followed further: it is written through as named.
func Resolve(path string) (Target, error) {
	p, linked := path, false
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			dir = filepath.Dir(p) // missing: the create will say so
		}
		if abs, err := filepath.Abs(dir); err == nil && (abs == "/proc" || strings.HasPrefix(abs, "/proc/")) {
			if _, err := os.Stat(p); err != nil {
				return Target{}, fmt.Errorf("write %s: %w", path, err)
			}
			return Target{Path: p, Kind: Proc, Linked: linked}, nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return Target{Path: p, Kind: Missing, Linked: linked}, nil
		}
		if err != nil {
			return Target{}, fmt.Errorf("write %s: %w", path, err)
		}
		kind := Device // character or block device, FIFO
		switch m := fi.Mode(); {
		case m&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return Target{}, fmt.Errorf("write %s: %w", path, err)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(dir, link)
			}
			p, linked = link, true
			continue
		case m.IsRegular():
			kind = Regular
		case m.IsDir():
			kind = Directory
		case m&fs.ModeSocket != 0:
			kind = Socket
		}
		return Target{Path: p, Kind: kind, Linked: linked}, nil
	}
	return Target{}, fmt.Errorf("write %s: %w", path, syscall.ELOOP)
}

// writeThrough writes fill's content into the existing file at path
// without replacing it.
func writeThrough(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = fill(f)
	if err = errors.Join(err, f.Close()); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path && pe.Op == "write" {
			return err // "write /dev/full: no space left on device"
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Replace is WriteFunc for a path that must be a regular file or nothing:
// anything else there (a symlink, device, FIFO, directory) is an error
// naming it, never followed or written through. It is Prepare and Commit
// in one, for files lab owns and for paths where following a symlink
// planted by someone else would write where lab never meant to.
func Replace(path string, perm os.FileMode, fill func(io.Writer) error) error {
	p, err := Prepare(path, perm, fill)
	if err != nil {
		return err
	}
	defer p.Discard()
	return p.Commit()
}

// Pending is new content for a file, written and synced to a temporary file
// beside it but not yet in place. Commit puts it in place; Discard drops it.
// It is for callers that must do something between the two, such as saving a
// copy of the file about to be replaced.
type Pending struct {
	path, tmp string
}

// TempPattern is the pattern (os.CreateTemp's) of the temporary file
// beside the destination name.
func TempPattern(name string) string { return "." + name + ".tmp-*" }

// IsTemp tells whether file is a temporary file of this package's for the
// destination name: "." + name + ".tmp-" + the digits os.CreateTemp adds.
func IsTemp(file, name string) bool {
	dest, ok := TempOf(file)
	return ok && dest == name
}

// TempOf returns the destination name whose temporary file file is, when
// it is one: ".run.json.tmp-123" gives "run.json".
func TempOf(file string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(file, ".")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, ".tmp-")
	if i <= 0 {
		return "", false
	}
	digits := rest[i+len(".tmp-"):]
	if digits == "" {
		return "", false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return rest[:i], true
}

// Prepare writes the content fill produces to a temporary file in path's
// directory, with mode perm, and syncs and closes it. The file is set to perm
// before any content is written, so the content is never more widely readable
// than perm allows. On failure nothing is left behind and path is untouched.
//
// Prepare and Commit replace a regular file or create a new one, nothing
// else: a path that is a symlink, device, FIFO, socket or directory is an
// error naming it (they are for files lab owns, such as the state).
func Prepare(path string, perm os.FileMode, fill func(io.Writer) error) (*Pending, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return prepare(path, perm, fill)
}

func prepare(path string, perm os.FileMode, fill func(io.Writer) error) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPattern(filepath.Base(path)))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	kept := false
	defer func() { // also when fill panics
		if !kept {
			_ = f.Close() // the write failed already; after a failed Close, only "already closed"
			os.Remove(tmp)
		}
	}()
	err = f.Chmod(perm)
	if err == nil {
		err = fill(f)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	kept = true
	return &Pending{path: path, tmp: tmp}, nil
}

// checkRegular refuses a path that exists and is not a regular file.
func checkRegular(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("write %s: it is a %s, not a regular file: lab replaces only regular files there; move it away", path, kindName(fi.Mode()))
}

func kindName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// Commit renames the temporary file over the destination and syncs the
// directory. After a failed rename the destination is untouched and the
// temporary file is still there for Discard; an error syncing the directory
// is reported, but the new content is already in place.
func (p *Pending) Commit() error {
	if err := checkRegular(p.path); err != nil { // it may have changed since Prepare
		return err
	}
	if err := os.Rename(p.tmp, p.path); err != nil {
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	p.tmp = ""
	if err := syncDir(filepath.Dir(p.path)); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", p.path, err)
	}
	return nil
}

// Discard removes the temporary file unless Commit has renamed it; it is
// meant to be deferred right after Prepare.
func (p *Pending) Discard() {
	if p.tmp != "" {
		os.Remove(p.tmp)
		p.tmp = ""
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
