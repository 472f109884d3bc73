// Package atomicfile replaces files atomically: a reader of the destination
// sees either the old content or the whole new content, never a part, and a
// failed write leaves the old file as it was.
//
// The new content goes to a temporary file in the destination's directory
// (so the final rename stays on one file system), which is given its mode,
// filled, synced and closed, then renamed over the destination; the
// directory is synced last so that the rename itself survives a crash. The
// temporary file is removed on any failure.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data, atomically, with mode perm.
func Write(path string, data []byte, perm os.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write with the content written by fill, for content that is
// streamed (fill's error aborts the write and is returned, wrapped).
func WriteFunc(path string, perm os.FileMode, fill func(io.Writer) error) error {
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

// Prepare writes the content fill produces to a temporary file in path's
// directory, with mode perm, and syncs and closes it. The file is set to perm
// before any content is written, so the content is never more widely readable
// than perm allows. On failure nothing is left behind and path is untouched.
func Prepare(path string, perm os.FileMode, fill func(io.Writer) error) (*Pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
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

// Commit renames the temporary file over the destination and syncs the
// directory. After a failed rename the destination is untouched and the
// temporary file is still there for Discard; an error syncing the directory
// is reported, but the new content is already in place.
func (p *Pending) Commit() error {
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
