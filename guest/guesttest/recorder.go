// Package guesttest holds a recording guest.Transport for OS drivers'
// transcript tests: it logs every command (and its stdin) the way the
// golden files show them and answers from canned replies.
package guesttest

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Reply is a canned answer to one command.
type Reply struct {
	Out, Stderr string
	Code        int
}

// Recorder is a guest.Transport that runs nothing. A command's reply comes
// from Queue (answered in turn, the last one repeating), else from Replies,
// else it succeeds silently. Both are keyed by the exact command line.
type Recorder struct {
	Guest   string
	Replies map[string]Reply
	Queue   map[string][]Reply
	// Log is the transcript: "$ cmd", "  < stdin line", "  exit N: stderr".
	Log strings.Builder
}

var _ guest.Transport = (*Recorder)(nil)

// Run logs c and returns its canned reply; a non-zero code is a
// *guest.CommandError, as from a real transport.
func (f *Recorder) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	line := c.String()
	r := f.Replies[line]
	if rs := f.Queue[line]; len(rs) > 0 {
		r = rs[0]
		if len(rs) > 1 {
			f.Queue[line] = rs[1:]
		}
	}
	fmt.Fprintf(&f.Log, "$ %s\n", c)
	if c.Stdin != nil {
		in, _ := io.ReadAll(c.Stdin)
		for _, l := range strings.Split(strings.TrimRight(string(in), "\n"), "\n") {
			fmt.Fprintf(&f.Log, "  < %s\n", l)
		}
	}
	res := guest.Result{Stdout: []byte(r.Out), Stderr: []byte(r.Stderr), ExitCode: r.Code}
	if r.Code != 0 {
		fmt.Fprintf(&f.Log, "  exit %d: %s\n", r.Code, strings.TrimSpace(r.Stderr))
		return res, &guest.CommandError{Guest: f.Name(), Cmd: line, ExitCode: r.Code, Stderr: r.Stderr}
	}
	return res, nil
}

// Upload does nothing.
func (f *Recorder) Upload(context.Context, string, io.Reader) error { return nil }

// Name is Guest.
func (f *Recorder) Name() string { return f.Guest }

// Close does nothing.
func (f *Recorder) Close() error { return nil }
