package ssh

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// OpenSSH refuses "signal" requests in sessions that run without privilege
// separation — every root login ("session signalling requires privilege
// separation") — and closing a session does not end a process that has no
// terminal. So each command runs under a tiny wrapper that reports its
// process id on stderr and then execs the command (same process id): a
// cancelled Run kills that id over a new session.

// PIDScript is the wrapper run by `sh -c`: the command follows as "$@"
// (a test server unwraps it to answer the command itself).
const PIDScript = `echo "lab-pid $$" >&2; exec "$@"`

// pidPrefix starts the first stderr line the wrapper prints.
const pidPrefix = "lab-pid "

// wrapped is the command line for argv: the wrapper and argv, each word
// quoted with guest.ShellJoin by the caller.
func wrapped(argv []string) []string {
	return append([]string{"sh", "-c", PIDScript, "sh"}, argv...)
}

// pidWriter passes stderr through, minus the wrapper's first line, whose
// process id it keeps. Its methods may be called while x/crypto/ssh's
// copying goroutine still writes (a cancelled Run gives the session only
// closeWait to end), so the text is read through Bytes, under its lock.
type pidWriter struct {
	mu   sync.Mutex
	out  bytes.Buffer
	head []byte // bytes of the first line so far
	done bool   // first line seen
	pid  int
}

func (w *pidWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if !w.done {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.head = append(w.head, p...)
			return n, nil
		}
		w.head = append(w.head, p[:i]...)
		p = p[i+1:]
		w.done = true
		if rest, ok := strings.CutPrefix(string(w.head), pidPrefix); ok {
			w.pid, _ = strconv.Atoi(rest)
		} else {
			w.out.Write(w.head) // not the wrapper's line: keep it
			w.out.WriteByte('\n')
		}
	}
	w.out.Write(p)
	return n, nil
}

// flush keeps a first line that never ended.
func (w *pidWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done && len(w.head) > 0 {
		w.out.Write(w.head)
		w.done = true
	}
}

// Bytes is a copy of the stderr passed through so far.
func (w *pidWriter) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.out.Bytes())
}

// lockedBuffer collects stdout, read through Bytes while the session's
// copying goroutine may still write it (see pidWriter).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Bytes is a copy of what was written so far.
func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

func (w *pidWriter) PID() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pid
}
