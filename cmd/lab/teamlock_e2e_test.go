package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/pgcluster"
	"github.com/lab-bench/lab/internal/results"
)

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTeamLockForReal (issue 34, section 3): two lab processes set up as
// two runners of one team (one PostgreSQL archive, each its own host lock
// directory, so only the team lock can keep them apart) take turns on
// this machine's footprint: one waits, told which runner, lab and pid
// holds it; killing the holder mid-run frees it (its session ends) and
// the waiter completes. No two benchmarks of theirs overlap in time.
func TestTeamLockForReal(t *testing.T) {
	needNamespaces(t)
	c := pgcluster.Start(t)
	type runner struct {
		name, lab, dir string
		cmd            *exec.Cmd
		stderr         *lockedBuffer
		done           chan error
	}
	var rs []*runner
	for _, n := range []string{"a", "b"} {
		r := &runner{name: "runner-" + n, lab: "e2e-team-" + n, stderr: &lockedBuffer{}, done: make(chan error, 1)}
		r.dir = labDir(t, r.lab, strings.ReplaceAll(smallLab, "%s", "3s"))
		r.cmd = labCmd(r.dir, "apply", "-auto-approve")
		r.cmd.Env = append(os.Environ(), "LAB_ARCHIVE="+c.URL, "LAB_RUNNER="+r.name, "LAB_HOST_LOCK_DIR="+t.TempDir())
		r.cmd.Stderr = r.stderr
		rs = append(rs, r)
	}
	for i, r := range rs {
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { r.done <- r.cmd.Wait() }()
		if i == 0 {
			waitForRecord(t, r.dir)
		}
	}
	// Whichever waits first names the other as the holder.
	waiter, holder := waitForTeamLock(t, rs[0].stderr, rs[1].stderr)
	w, h := rs[waiter], rs[holder]
	msg := w.stderr.String()
	want := fmt.Sprintf("runner %q, lab %q, pid %d", h.name, h.lab, h.cmd.Process.Pid)
	if !strings.Contains(msg, want) {
		t.Fatalf("the wait does not name the holder (%s):\n%s", want, msg)
	}
	h.cmd.Process.Kill() // the holder dies mid-run
	<-h.done
	t.Cleanup(func() { // its machines are left: destroy them
		if out, stderr, err := lab(t, h.dir, "destroy", "-auto-approve"); err != nil {
			t.Errorf("destroy after the kill: %v\n%s%s", err, out, stderr)
		}
	})
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("%s after the holder died: %v\n%s", w.name, err, w.stderr.String())
		}
	case <-time.After(10 * time.Minute):
		t.Fatalf("%s still waits 10 min after the holder died:\n%s", w.name, w.stderr.String())
	}
	noOverlap(t, w.dir, h.dir)
}

// waitForTeamLock waits until one of the stderrs says it waits for the
// team's lock, and returns its index and the other's.
func waitForTeamLock(t *testing.T, errs ...*lockedBuffer) (waiter, holder int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		for i, e := range errs {
			if strings.Contains(e.String(), "Waiting for the team's benchmark lock") {
				return i, 1 - i
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("neither runner waited for the other:\n%s\n---\n%s", errs[0].String(), errs[1].String())
	return 0, 0
}

// noOverlap fails when a benchmark of a's latest run (which completed)
// measured while one of b's (killed, perhaps before any record) did.
func noOverlap(t *testing.T, a, b string) {
	t.Helper()
	load := func(dir string) []results.Record {
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		id, err := rs.Latest()
		if err != nil {
			t.Fatal(err)
		}
		_, recs, err := rs.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	ra, rb := load(a), load(b)
	if len(ra) == 0 {
		t.Fatalf("no records in %s", a)
	}
	for _, x := range ra {
		for _, y := range rb {
			if x.Raw.Start.Before(y.Raw.End) && y.Raw.Start.Before(x.Raw.End) {
				t.Errorf("benchmarks overlapped: %s r%d [%s, %s] and %s r%d [%s, %s]", x.CellKey, x.Repeat, x.Raw.Start, x.Raw.End,
					y.CellKey, y.Repeat, y.Raw.Start, y.Raw.End)
			}
		}
	}
}
