package archive

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// migrations are the schema's versions: migrations/NNNN_name.sql, applied
// in order, each in its own transaction with the version it reaches.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Migration is one schema version's SQL.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v != len(out)+1 {
			return nil, fmt.Errorf("migration %s: want version %d first in its name", base, len(out)+1)
		}
		src, err := migrations.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: base, SQL: string(src)})
	}
	return out, nil
}

// migrate brings the archive's schema up to SchemaVersion. Two labs
// opening a new archive at once are serialised (an advisory lock on
// PostgreSQL, an immediate transaction on SQLite); an archive newer than
// this lab is an error, never touched.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	for {
		done, err := s.migrateOne(ctx, ms)
		if err != nil || done {
			return err
		}
	}
}

// migrationLock is the PostgreSQL advisory lock key migrations hold.
const migrationLock = 0x6c61626d6967 // "labmig"

// migrateOne applies the next migration, if any, in one transaction.
func (s *Store) migrateOne(ctx context.Context, ms []Migration) (done bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil || done {
			_ = tx.Rollback()
		}
	}()
	if s.Kind == "postgres" {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS lab_schema (version INTEGER NOT NULL)"); err != nil {
		return false, err
	}
	var have int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM lab_schema").Scan(&have); err != nil {
		return false, err
	}
	if have > len(ms) {
		return false, fmt.Errorf("schema version %d is %w (%d): upgrade lab", have, errNewer, len(ms))
	}
	if have == len(ms) {
		return true, nil
	}
	m := ms[have]
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, s.q("DELETE FROM lab_schema")); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO lab_schema (version) VALUES (?)"), m.Version); err != nil {
		return false, err
	}
	return false, tx.Commit()
}
