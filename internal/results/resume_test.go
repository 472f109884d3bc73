package results

import (
	"strings"
	"testing"
)

// TestReopen: a finished run reopens as running under this process; a
// record written again replaces the failed one; a running run is refused.
func TestReopen(t *testing.T) {
	host := "h"
	s := Store{Dir: t.TempDir()}
	r, err := s.NewRun(RunInfo{Lab: "l", Started: started, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reopen(r.ID()); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("reopen of a running run: %v", err)
	}
	failed := Record{Lab: "l", Experiment: "e", Pair: "p", CellKey: "mtu=1500", Repeat: 1, Error: "boom"}
	if err := r.Write(failed); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(StatusInterrupted); err != nil {
		t.Fatal(err)
	}
	again, err := s.Reopen(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	info, _ := s.readInfo(r.ID())
	if info.Status != StatusRunning || !info.Ended.IsZero() {
		t.Errorf("reopened run: status %s, ended %v", info.Status, info.Ended)
	}
	ok := failed
	ok.Error, ok.Provenance.Apply = "", ApplyID(started.Add(60e9))
	if err := again.Write(ok); err != nil {
		t.Fatalf("rewrite the failed record: %v", err)
	}
	if err := again.Finish(StatusComplete); err != nil {
		t.Fatal(err)
	}
	info, recs, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != StatusComplete || len(recs) != 1 || recs[0].Error != "" || recs[0].Provenance.Apply != "20261129T234601Z" {
		t.Errorf("after resume: %s, %+v", info.Status, recs)
	}
}
