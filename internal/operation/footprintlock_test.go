package operation

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/pgcluster"
)

// TestTeamLockDatabaseLostAfterOpen: a real PostgreSQL killed between
// opening the archive and taking the advisory lock (CI caught this race
// in TestArchiveForReal) leaves the team lock out of reach: a warning and
// the file lock, never a failed apply. A cancelled wait stays an error.
func TestTeamLockDatabaseLostAfterOpen(t *testing.T) {
	c := pgcluster.Start(t)
	defer func(open func(context.Context, string) (*archive.Store, error)) { openArchive = open }(openArchive)
	openArchive = func(ctx context.Context, loc string) (*archive.Store, error) {
		s, err := archive.Open(ctx, loc)
		c.Kill()
		return s, err
	}
	var stderr bytes.Buffer
	o := &Operation{Stderr: &stderr}
	release, ok, err := o.teamLock(context.Background(), c.URL, "lost", []string{thisMachineResource()})
	if err != nil || ok || release != nil || !strings.Contains(stderr.String(), "out of reach") {
		t.Fatalf("teamLock with the database killed after opening: ok %v, err %v, stderr %q", ok, err, stderr.String())
	}

	if err := c.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	openArchive = func(ctx context.Context, loc string) (*archive.Store, error) {
		s, err := archive.Open(ctx, loc)
		cancel()
		return s, err
	}
	if _, _, err := o.teamLock(ctx, c.URL, "cancelled", []string{thisMachineResource()}); err == nil {
		t.Fatal("teamLock whose wait was cancelled: no error")
	}
}
