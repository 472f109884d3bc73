package operation

import (
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/results"
)

// LockGuard holds an apply's runs to the lab's lock file: every drift is
// reported once, as a warning, or as an error that stops the apply when
// the user asked for -locked. It also collects what the runs observed, to
// write the lock file after a lab's first complete apply.
type LockGuard struct {
	locked *lockfile.Lock // nil: the lab has no lock file yet
	strict bool
	// Observed is what the runs so far observed.
	Observed *lockfile.Lock
	reported map[string]bool
	// Drifted is whether a run drifted from the lock file.
	Drifted bool
	warn    io.Writer
}

// NewLockGuard holds runs to locked (nil: no lock file yet); strict is
// -locked; warn takes the drift warnings.
func NewLockGuard(locked *lockfile.Lock, strict bool, warn io.Writer) *LockGuard {
	return &LockGuard{locked: locked, strict: strict, Observed: lockfile.New(), reported: map[string]bool{}, warn: warn}
}

// AfterRun is the engine's AfterRun hook.
func (g *LockGuard) AfterRun(rec results.Record) error {
	g.Observed.Add(rec)
	if g.locked == nil {
		return nil
	}
	for _, msg := range g.locked.Drift(lockfile.FromRecords([]results.Record{rec})) {
		if g.reported[msg] {
			continue
		}
		g.reported[msg] = true
		g.Drifted = true
		if g.strict {
			return fmt.Errorf("drift from %s (-locked): %s; run `lab init -upgrade` to accept the new value", lockfile.FileName, msg)
		}
		fmt.Fprintf(g.warn, "Warning: drift from %s: %s\n", lockfile.FileName, msg)
	}
	return nil
}

// LatestObserved is what the latest run observed, as a lock file (what
// `lab init -upgrade` writes), and that run's id.
func (o *Operation) LatestObserved() (string, *lockfile.Lock, error) {
	rs := o.ResultStore()
	id, err := rs.Latest()
	if err != nil {
		return "", nil, fmt.Errorf("init -upgrade rewrites %s from the latest run, and there is none yet: run `lab apply` first", lockfile.FileName)
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		return "", nil, err
	}
	return id, lockfile.FromRecords(recs), nil
}
