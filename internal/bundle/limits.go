package bundle

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/lab-bench/lab/internal/spec"
)

// Limits on what lab reads from a bundle, untrusted input: every file is
// checked against its limit (Stat) before it is read, and read through an
// io.LimitReader, so a sparse 1 GiB file costs neither the time nor the
// memory to read it.
const (
	// MaxSpecFile bounds each file of spec/: the spec loader's own limit
	// on a lab or variables file.
	MaxSpecFile = spec.MaxFileSize
	// MaxInfoFile bounds bundle.json.
	MaxInfoFile = 1 << 20
	// MaxFile bounds every other file: a record, run.json, the reports,
	// the manifest.
	MaxFile = 64 << 20
	// MaxTotal bounds the bundle's files together.
	MaxTotal = 1 << 30
)

// limitFor is the limit on the bundle file rel (slash-separated).
func limitFor(rel string) int64 {
	switch {
	case rel == InfoFile:
		return MaxInfoFile
	case strings.HasPrefix(rel, SpecDir+"/"):
		return MaxSpecFile
	}
	return MaxFile
}

// sizeError says a file is over its limit.
func sizeError(size, limit int64) string {
	return fmt.Sprintf("has %d bytes, more than the %d bytes a bundle's file of this kind may have", size, limit)
}

// openLimited opens the regular file path for reading when it has at most
// limit bytes: no symlink is followed, and a FIFO swapped in never blocks
// the open. The caller reads through io.LimitReader(f, limit+1): the file
// may grow after the check.
func openLimited(path string, limit int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = fmt.Errorf("%s: not a regular file", path)
	case fi.Size() > limit:
		err = fmt.Errorf("%s %s", path, sizeError(fi.Size(), limit))
	}
	if err != nil {
		_ = f.Close() // read only: nothing to lose
		return nil, err
	}
	return f, nil
}

// readLimited reads the regular file path of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := openLimited(path, limit)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s grew past %d bytes while read", path, limit)
	}
	return b, err
}
