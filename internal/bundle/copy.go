package bundle

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/lockfile"
)

// CopyTree copies every regular file under src to the same relative path
// under dst, byte for byte, creating directories as needed. Anything that
// is neither a directory nor a regular file (a symlink, a socket) is an
// error: a bundle holds files only. Each file may have at most MaxFile
// bytes and all of them MaxTotal.
func CopyTree(dst, src string) error {
	var total int64
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("copy %s: not a regular file", path)
		}
		n, err := copyLimited(target, path, MaxFile)
		if total += n; err == nil && total > MaxTotal {
			err = fmt.Errorf("copy %s: the files come to more than %d bytes, the limit of a bundle", src, MaxTotal)
		}
		return err
	})
}

// CopyFile copies the regular file src (at most MaxFile bytes) to dst
// (mode 0644).
func CopyFile(dst, src string) error {
	_, err := copyLimited(dst, src, MaxFile)
	return err
}

// copyLimited copies the regular file src of at most limit bytes to dst,
// streaming it; on an error nothing is left at dst. It returns the bytes
// copied.
func copyLimited(dst, src string, limit int64) (n int64, err error) {
	in, err := openLimited(src, limit)
	if err != nil {
		return 0, fmt.Errorf("copy %w", err)
	}
	defer func() { _ = in.Close() }() // read only: nothing to lose
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, err
	}
	n, err = io.Copy(out, io.LimitReader(in, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("copy %s: grew past %d bytes while copied", src, limit)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst) // the error said what failed; a partial copy must not stay
		return n, err
	}
	return n, nil
}

// CopySpec copies from the bundle in dir's spec/ to dst what a spec needs
// and nothing else: the top-level *.hcl files the spec loader reads, the
// lock file and info's variables file, each of at most MaxSpecFile bytes.
// It returns the names of the entries of spec/ it left out (a directory
// with a trailing "/"), sorted: a .lab/ directory holds another
// workspace's state, whose machines an apply would take for its own.
func CopySpec(dst, dir string, info Info) (ignored []string, err error) {
	src := filepath.Join(dir, SpecDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !specNeeds(name, info) {
			if e.IsDir() {
				name += "/"
			}
			ignored = append(ignored, name)
			continue
		}
		if _, err := copyLimited(filepath.Join(dst, name), filepath.Join(src, name), MaxSpecFile); err != nil {
			return nil, fmt.Errorf("bundle %s: %w", dir, err)
		}
	}
	slices.Sort(ignored)
	return ignored, nil
}

// specNeeds reports whether the file name of spec/ is one a spec needs:
// a spec file (*.hcl, not hidden: spec.Load skips hidden ones), the lock
// file or the variables file.
func specNeeds(name string, info Info) bool {
	return strings.HasSuffix(name, ".hcl") && !strings.HasPrefix(name, ".") ||
		name == lockfile.FileName || info.VarFile != "" && name == info.VarFile
}
