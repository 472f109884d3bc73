package results

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ApplyID names one apply in a record's provenance: the time it started,
// in the layout of run ids. The apply that starts a run has the run's id.
func ApplyID(started time.Time) string { return started.UTC().Format(runIDLayout) }

// Reopen opens an existing run to write more records into it (`lab apply
// -resume`): its run.json says "running" again, under this process, until
// Finish. Records written now replace those of the same path (failed runs
// rerun). A run still running elsewhere is refused.
func (s Store) Reopen(runID string) (*Run, error) {
	info, err := s.readInfo(runID)
	if err != nil {
		return nil, fmt.Errorf("reopen run %s: %w", runID, err)
	}
	if info.Status == StatusRunning {
		return nil, fmt.Errorf("run %s is still running (pid %d on %s)", runID, info.PID, info.Host)
	}
	info.Status, info.Ended, info.Note = StatusRunning, time.Time{}, ""
	info.PID = os.Getpid()
	info.Host, _ = os.Hostname()
	r := &Run{dir: filepath.Join(s.Dir, info.ID), info: info, written: map[string]bool{}, redact: s.Redact}
	if err := writeJSON(filepath.Join(r.dir, infoFile), info, r.redact); err != nil {
		return nil, fmt.Errorf("reopen run %s: %w", runID, err)
	}
	return r, nil
}
