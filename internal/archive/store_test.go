package archive

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/pgcluster"
	"github.com/lab-bench/lab/internal/results"
)

// quickstart is a real run: the pinned quickstart bundle's records.
const quickstart = "../../testdata/bundles/quickstart/records/20261205T125014Z"

// backend opens a fresh archive of one kind for a test.
type backend struct {
	name string
	open func(t *testing.T) (string, *pgcluster.Cluster) // location, and the server (nil: embedded)
}

// backends are the databases every test runs on: the same suite, the
// same expectations.
func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) (string, *pgcluster.Cluster) {
			return filepath.Join(t.TempDir(), "archive.sqlite"), nil
		}},
		{"postgres", func(t *testing.T) (string, *pgcluster.Cluster) {
			c := pgcluster.Start(t)
			return c.URL, c
		}},
	}
}

func openStore(t *testing.T, location string) *Store {
	t.Helper()
	s, err := Open(context.Background(), location)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func readRun(t *testing.T, dir string) Run {
	t.Helper()
	run, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestStore(t *testing.T) {
	ctx := context.Background()
	run := readRun(t, quickstart)
	if len(run.Records) != 40 {
		t.Fatalf("quickstart has %d records, want 40", len(run.Records))
	}
	var series [][]Point
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			loc, _ := b.open(t)
			s := openStore(t, loc)
			for i, want := range []int{40, 0} { // the second import adds nothing
				added, err := s.Put(ctx, run)
				if err != nil || added != want {
					t.Fatalf("put #%d: added %d, %v; want %d", i+1, added, err, want)
				}
			}
			if runs, recs, err := s.RunCount(ctx); runs != 1 || recs != 40 || err != nil {
				t.Fatalf("archive holds %d runs, %d records (%v); want 1, 40", runs, recs, err)
			}
			checkBytes(t, s, run)
			pts, err := s.Points(ctx, Filter{Lab: run.Info.Lab, Experiment: "mtu", Cell: "mtu=9000", Metric: results.MetricThroughput})
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) != 20 {
				t.Fatalf("%d points for mtu=9000 throughput, want 20 (one per repeat)", len(pts))
			}
			for i, p := range pts {
				if p.Repeat != i+1 || p.RunID != run.Info.ID || !p.Applied.Equal(run.Info.Started) || p.Value <= 0 || p.Kernel == "" {
					t.Fatalf("point %d: %+v", i, p)
				}
			}
			series = append(series, pts)
			// A reopened archive is at this lab's schema version and not migrated again.
			s2 := openStore(t, loc)
			var v int
			if err := s2.db.QueryRow("SELECT version FROM lab_schema").Scan(&v); err != nil || v != SchemaVersion() {
				t.Fatalf("schema version %d (%v), want %d", v, err, SchemaVersion())
			}
		})
	}
	if len(series) == 2 && !reflect.DeepEqual(series[0], series[1]) {
		t.Fatalf("SQLite and PostgreSQL differ:\n%+v\n%+v", series[0], series[1])
	}
}

// checkBytes asserts the archive keeps each record's JSON byte for byte.
func checkBytes(t *testing.T, s *Store, run Run) {
	t.Helper()
	for _, rec := range run.Records {
		var got string
		if err := s.db.QueryRow(s.q("SELECT record_json FROM records WHERE run_id = ? AND path = ?"), run.Info.ID, rec.Path).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != string(rec.JSON) {
			t.Fatalf("%s: stored JSON differs from the file", rec.Path)
		}
	}
}

// TestResumedRunAddsRecords: putting a run again stores the records it
// gained since (a resumed run), and its newer run.json.
func TestResumedRunAddsRecords(t *testing.T) {
	ctx := context.Background()
	full := readRun(t, quickstart)
	part := full
	part.Records = full.Records[:10]
	part.InfoJSON = []byte(strings.Replace(string(full.InfoJSON), `"complete"`, `"interrupted"`, 1))
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			loc, _ := b.open(t)
			s := openStore(t, loc)
			if n, err := s.Put(ctx, part); n != 10 || err != nil {
				t.Fatalf("first put: %d, %v", n, err)
			}
			if n, err := s.Put(ctx, full); n != 30 || err != nil {
				t.Fatalf("second put: %d, %v; want the 30 new records", n, err)
			}
			var js string
			if err := s.db.QueryRow("SELECT run_json FROM runs").Scan(&js); err != nil || js != string(full.InfoJSON) {
				t.Fatalf("run.json not updated (%v)", err)
			}
		})
	}
}

// TestRollback: a Put that fails half-way — an error, or the database
// killed mid-transaction — leaves nothing of the run visible.
func TestRollback(t *testing.T) {
	ctx := context.Background()
	run := readRun(t, quickstart)
	for _, b := range backends() {
		for _, kill := range []bool{false, true} {
			name := b.name + "/error"
			if kill {
				name = b.name + "/killed"
			}
			t.Run(name, func(t *testing.T) {
				loc, server := b.open(t)
				if kill && server == nil {
					t.Skip("an embedded SQLite file cannot be killed apart from lab; the error case covers it")
				}
				s := openStore(t, loc)
				boom := errors.New("boom")
				s.failAfter = func(n int) error {
					if n < 7 {
						return nil
					}
					if kill {
						server.Kill()
						return nil // the next statement or the commit fails
					}
					return boom
				}
				if _, err := s.Put(ctx, run); err == nil {
					t.Fatal("put succeeded")
				}
				if kill {
					if err := server.Restart(); err != nil {
						t.Fatal(err)
					}
				}
				s2 := openStore(t, loc)
				if runs, recs, err := s2.RunCount(ctx); runs != 0 || recs != 0 || err != nil {
					t.Fatalf("after a failed put the archive holds %d runs, %d records (%v); want none", runs, recs, err)
				}
			})
		}
	}
}

func TestFindRuns(t *testing.T) {
	got, err := FindRuns("../../testdata/bundles/quickstart")
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "20261205T125014Z" {
		t.Fatalf("FindRuns = %v, %v", got, err)
	}
	if _, err := FindRuns(t.TempDir()); err == nil {
		t.Fatal("no error for a directory without runs")
	}
}

// TestNewerSchemaRefused: an archive a newer lab migrated further is an
// error naming both versions, and is left as it is.
func TestNewerSchemaRefused(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			loc, _ := b.open(t)
			s := openStore(t, loc)
			if _, err := s.db.Exec("UPDATE lab_schema SET version = 99"); err != nil {
				t.Fatal(err)
			}
			_, err := Open(context.Background(), loc)
			if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer than this lab knows") {
				t.Fatalf("opening a newer archive: %v", err)
			}
			var v int
			if err := s.db.QueryRow("SELECT version FROM lab_schema").Scan(&v); err != nil || v != 99 {
				t.Fatalf("the newer archive was touched: version %d, %v", v, err)
			}
		})
	}
}

// SchemaVersion is the version this lab's migrations reach.
func SchemaVersion() int {
	ms, _ := Migrations()
	return len(ms)
}
