package operation

import (
	"os"
	"os/signal"
	"slices"
	"syscall"
	"testing"
)

// TestInterruptSignalsKeepNohup: SIGHUP is caught as an interrupt, except
// when it is ignored (`nohup lab apply`): asking signal.Notify for it
// would un-ignore it, and a closed terminal would then stop the apply.
//
// The first half needs a test process whose SIGHUP is not ignored: run
// under nohup (as a CI-like run started in the background is), the
// process is the second half's case, and the first is skipped with a log.
func TestInterruptSignalsKeepNohup(t *testing.T) {
	switch {
	case signal.Ignored(syscall.SIGHUP):
		t.Log("SIGHUP is ignored by whoever started this test (nohup): only the ignored case is checked")
	case !slices.Contains(interruptSignals(), os.Signal(syscall.SIGHUP)):
		t.Errorf("SIGHUP not caught: %v", interruptSignals())
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if sigs := interruptSignals(); slices.Contains(sigs, os.Signal(syscall.SIGHUP)) {
		t.Errorf("SIGHUP ignored (nohup), but caught: %v", sigs)
	}
}

// TestOutputGone: a SIGPIPE stops an apply only when lab's own output lost
// its reader. A pipe whose reader closed is gone; one still read is not,
// nor is a file (a SIGPIPE from a dead database or SSH socket once stopped
// a whole apply: TestArchiveForReal, after its PostgreSQL was killed).
func TestOutputGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if outputGone(int(w.Fd()), int(f.Fd())) {
		t.Error("a pipe still read and a file: reported gone")
	}
	r.Close()
	if !outputGone(int(f.Fd()), int(w.Fd())) {
		t.Error("a pipe whose reader closed: not reported gone")
	}
}
