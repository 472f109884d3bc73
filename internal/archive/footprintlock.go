package archive

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Holder is who holds a footprint's benchmark lock.
type Holder struct {
	Runner string // LAB_RUNNER, or the runner's host name
	Lab    string
	PID    int
	Since  time.Time
}

func (h Holder) String() string {
	return fmt.Sprintf("runner %q, lab %q, pid %d, since %s", h.Runner, h.Lab, h.PID, h.Since.UTC().Format(time.RFC3339))
}

// lockSpace is the first key of every footprint advisory lock, so that
// lab's locks never meet another application's in a shared database.
const lockSpace = 0x6c6162 // "lab"

// Everything is the resource of an unknown footprint (the zero
// providers.Footprint), which meets every footprint: LockFootprint of no
// resources holds it exclusively, every other LockFootprint holds it
// shared, so a run whose footprint is unknown runs alone across the team.
const Everything = "everything"

// everythingKey is Everything's advisory lock key: negative, so no
// resource's (lockKey, non-negative) is it.
const everythingKey = -1

// lockKey is a footprint resource's advisory lock key.
func lockKey(resource string) int32 {
	sum := sha256.Sum256([]byte(resource))
	return int32(binary.BigEndian.Uint32(sum[:4]) & 0x7fffffff)
}

// LockFootprint takes the benchmark lock of each resource (a footprint's
// resources, providers.Footprint) as PostgreSQL session advisory locks on
// s's database, in sorted order, waiting until each is free or ctx is
// done. No resources is an unknown footprint: it takes Everything
// exclusively, which every other call holds shared first. Waiting for one, it calls waiting once with who holds it. The
// locks live in one session of their own: release ends it, and so does
// the death of this process, whose locks the server then drops.
func (s *Store) LockFootprint(ctx context.Context, resources []string, me Holder, waiting func(resource string, h Holder)) (release func(), err error) {
	if s.Kind != "postgres" {
		return nil, errors.New("footprint locks need a PostgreSQL archive")
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("footprint lock (%s): %w", s.Where, err)
	}
	release = func() {
		// Unlocking explicitly before returning the session to the pool:
		// a pooled session keeps its advisory locks.
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = conn.ExecContext(c, "DELETE FROM footprint_holders WHERE backend_pid = pg_backend_pid()")
		_, _ = conn.ExecContext(c, "SELECT pg_advisory_unlock_all()")
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // drop the session, never reuse it
		_ = conn.Close()
	}
	rs := slices.Compact(slices.Sorted(slices.Values(resources)))
	everything := "SELECT pg_try_advisory_lock_shared($1, $2)"
	if len(rs) == 0 {
		everything = "SELECT pg_try_advisory_lock($1, $2)"
	}
	if err := s.lockOne(ctx, conn, everything, Everything, everythingKey, waiting); err != nil {
		release()
		return nil, fmt.Errorf("footprint lock %q (%s): %w", Everything, s.Where, err)
	}
	if len(rs) == 0 {
		rs = []string{Everything} // only to name its holder: it is held
	}
	for _, r := range rs {
		err := error(nil)
		if r != Everything {
			err = s.lockOne(ctx, conn, "SELECT pg_try_advisory_lock($1, $2)", r, lockKey(r), waiting)
		}
		if err == nil {
			err = hold(ctx, conn, r, me)
		}
		if err != nil {
			release()
			return nil, fmt.Errorf("footprint lock %q (%s): %w", r, s.Where, err)
		}
	}
	return release, nil
}

// hold names me as the holder of resource, for the runners waiting for it.
func hold(ctx context.Context, conn *sql.Conn, resource string, me Holder) error {
	_, err := conn.ExecContext(ctx, `INSERT INTO footprint_holders (resource, runner, lab, pid, since, backend_pid)
		VALUES ($1, $2, $3, $4, $5, pg_backend_pid())
		ON CONFLICT (resource) DO UPDATE SET runner = excluded.runner, lab = excluded.lab, pid = excluded.pid,
		since = excluded.since, backend_pid = excluded.backend_pid`,
		resource, me.Runner, me.Lab, me.PID, timeText(me.Since))
	return err
}

// lockOne waits for one resource's advisory lock (key) on conn, trying
// it with the query try (exclusive or shared).
func (s *Store) lockOne(ctx context.Context, conn *sql.Conn, try, resource string, key int32, waiting func(string, Holder)) error {
	told := false
	for {
		var ok bool
		if err := conn.QueryRowContext(ctx, try, lockSpace, key).Scan(&ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		if !told && waiting != nil {
			waiting(resource, s.holder(ctx, conn, resource))
			told = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// holder reads who holds resource's lock: the row of a live session;
// for Everything, held shared by every run in flight, the oldest of them.
func (s *Store) holder(ctx context.Context, conn *sql.Conn, resource string) Holder {
	var h Holder
	var since string
	err := conn.QueryRowContext(ctx, `SELECT runner, lab, pid, since FROM footprint_holders
		WHERE (resource = $1 OR $1 = 'everything') AND backend_pid IN (SELECT pid FROM pg_stat_activity)
		ORDER BY resource = $1 DESC, since LIMIT 1`, resource).Scan(&h.Runner, &h.Lab, &h.PID, &since)
	if err != nil {
		return Holder{Runner: "another runner (not yet named)"}
	}
	h.Since, _ = time.Parse(timeLayout, since)
	return h
}
