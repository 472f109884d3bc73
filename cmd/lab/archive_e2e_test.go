package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/pgcluster"
	"github.com/lab-bench/lab/internal/results"
)

// labWithEnv runs lab in dir with env added to the process's.
func labWithEnv(t *testing.T, dir string, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := labCmd(dir, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// points reads a lab's points from the archive at loc.
func points(t *testing.T, loc, labID string) []archive.Point {
	t.Helper()
	s, err := archive.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pts, err := s.Points(context.Background(), archive.Filter{Lab: labID})
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// TestArchiveForReal (issue 34): two applies of a local lab land in a
// PostgreSQL archive and, imported, in a SQLite one, identically;
// importing again adds nothing; a database killed mid-apply loses
// nothing — the apply completes, says the archive write failed, and
// `lab archive push` sends the run once the database is back.
func TestArchiveForReal(t *testing.T) {
	needNamespaces(t)
	c := pgcluster.Start(t)
	sqlite := filepath.Join(t.TempDir(), "archive.sqlite")
	const labID = "e2e-archive"
	dir := labDir(t, labID, strings.ReplaceAll(smallLab, "%s", "2s"))
	env := []string{"LAB_ARCHIVE=" + c.URL, "LAB_HOST_LOCK_DIR=" + t.TempDir()}
	for i := range 2 {
		if out, stderr, err := labWithEnv(t, dir, env, "apply", "-auto-approve"); err != nil || strings.Contains(stderr, "archive") {
			t.Fatalf("apply #%d: %v\n%s%s", i+1, err, out, stderr)
		}
	}
	pg := points(t, c.URL, labID)
	for i, want := range []string{"Archived [1-9][0-9]* new records", "Archived 0 new records"} {
		out, stderr, err := labWithEnv(t, dir, nil, "archive", "import", "-archive", sqlite, filepath.Join(dir, "results"))
		if err != nil || !regexp.MustCompile(want).MatchString(out) {
			t.Fatalf("import #%d: %v\n%s%s", i+1, err, out, stderr)
		}
	}
	if runs := distinctRuns(pg); len(runs) != 2 || !reflect.DeepEqual(pg, points(t, sqlite, labID)) {
		t.Fatalf("PostgreSQL holds %d runs; SQLite and PostgreSQL differ or are empty", len(runs))
	}

	// The database is killed mid-apply.
	cmd := labCmd(dir, "apply", "-auto-approve")
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForNewRecord(t, dir, 2)
	c.Kill()
	if err := cmd.Wait(); err != nil || !strings.Contains(stderr.String(), "the archive write failed") ||
		!strings.Contains(stderr.String(), "lab archive push") {
		t.Fatalf("apply with the database killed: %v\n%s", err, stderr.String())
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil || len(recs) == 0 {
		t.Fatalf("results/ of the apply whose database died: %d records, %v", len(recs), err)
	}
	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	if out, stderr, err := labWithEnv(t, dir, env, "archive", "push"); err != nil || !strings.Contains(out, "Archived ") {
		t.Fatalf("push: %v\n%s%s", err, out, stderr)
	}
	if runs := distinctRuns(points(t, c.URL, labID)); len(runs) != 3 || !runs[id] {
		t.Fatalf("after push the archive holds runs %v; want 3, with %s", runs, id)
	}
}

func distinctRuns(pts []archive.Point) map[string]bool {
	runs := map[string]bool{}
	for _, p := range pts {
		runs[p.RunID] = true
	}
	return runs
}

// waitForNewRecord waits until dir's results hold a record of a run
// beyond the first `have`.
func waitForNewRecord(t *testing.T, dir string, have int) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		runs, _ := filepath.Glob(filepath.Join(dir, "results", "*", "run.json"))
		if len(runs) > have {
			rs := results.Store{Dir: filepath.Join(dir, "results")}
			if id, err := rs.Latest(); err == nil {
				if m, _ := filepath.Glob(filepath.Join(dir, "results", id, "*", "*", "*", "r*.json")); len(m) > 0 {
					return
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no record of a new run within 120s")
}
