package main

import (
	"fmt"
	"io"

	"github.com/lab-bench/lab/lockfile"
	"github.com/lab-bench/lab/results"
)

// lockGuard holds an apply's runs to the lab's lock file: every drift is
// reported once, as a warning, or as an error that stops the apply when
// the user asked for -locked. It also collects what the runs observed, to
// write the lock file after a lab's first complete apply.
type lockGuard struct {
	locked   *lockfile.Lock // nil: the lab has no lock file yet
	strict   bool
	observed *lockfile.Lock
	reported map[string]bool
	drifted  bool
	warn     io.Writer
}

func newLockGuard(locked *lockfile.Lock, strict bool, warn io.Writer) *lockGuard {
	return &lockGuard{locked: locked, strict: strict, observed: lockfile.New(), reported: map[string]bool{}, warn: warn}
}

// afterRun is the engine's AfterRun hook.
func (g *lockGuard) afterRun(rec results.Record) error {
	g.observed.Add(rec)
	if g.locked == nil {
		return nil
	}
	for _, msg := range g.locked.Drift(lockfile.FromRecords([]results.Record{rec})) {
		if g.reported[msg] {
			continue
		}
		g.reported[msg] = true
		g.drifted = true
		if g.strict {
			return fmt.Errorf("drift from %s (-locked): %s; run `lab init -upgrade` to accept the new value", lockfile.FileName, msg)
		}
		fmt.Fprintf(g.warn, "Warning: drift from %s: %s\n", lockfile.FileName, msg)
	}
	return nil
}
