package atomicfile

import (
	"bytes"
	"fmt"
	"io"
)

// Output is where a verb with `-o FILE` writes: standard output when the
// path is "", else a buffer that Commit writes to the path atomically
// (Write), so a failed render never leaves a half-written file.
type Output struct {
	path   string
	stdout io.Writer
	buf    bytes.Buffer
}

// NewOutput returns the Output for path ("" meaning stdout).
func NewOutput(path string, stdout io.Writer) *Output {
	return &Output{path: path, stdout: stdout}
}

// Write writes to standard output, or buffers for Commit.
func (o *Output) Write(p []byte) (int, error) {
	if o.path == "" {
		return o.stdout.Write(p)
	}
	return o.buf.Write(p)
}

// ToFile reports whether the output goes to a file.
func (o *Output) ToFile() bool { return o.path != "" }

// Commit writes the buffered output to the file (mode 0644) and returns
// where it went: the path, or the symlink's target named beside it. It
// returns "" for standard output, which has nothing to commit.
func (o *Output) Commit() (string, error) {
	if o.path == "" {
		return "", nil
	}
	if err := Write(o.path, o.buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	if t, err := Resolve(o.path); err == nil && t.Linked && t.Kind == Regular {
		return fmt.Sprintf("%s (the target of the symlink %s)", t.Path, o.path), nil
	}
	return o.path, nil
}
