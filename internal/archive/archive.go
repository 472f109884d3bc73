// Package archive keeps every apply's run and records in a database
// beside results/: an embedded SQLite file by default, a team's
// PostgreSQL when LAB_ARCHIVE (or -archive) names one. Both hold the
// same schema (migrations/*.sql, versioned and migrated forward on
// open), run the same SQL, and keep each record's JSON byte for byte
// beside the indexed columns that `lab history` queries (Points).
package archive

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite", pure Go
)

// EnvVar names the archive when -archive does not.
const EnvVar = "LAB_ARCHIVE"

// Off is the archive location that turns the archive off.
const Off = "off"

// Store is an open archive.
type Store struct {
	db *sql.DB
	// Kind is "sqlite" or "postgres".
	Kind string
	// Where is the database's location, without a password, for messages.
	Where string
	// failAfter, when set (tests), is called after each record a Put
	// inserts; its error aborts the transaction half-way.
	failAfter func(n int) error
}

// DefaultPath is the SQLite file used when no archive is named:
// $XDG_DATA_HOME/lab/archive.sqlite, else ~/.local/share/lab/archive.sqlite.
func DefaultPath(getenv func(string) string) string {
	dir := getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if h := getenv("HOME"); h != "" {
			home, err = h, nil
		}
		if err != nil {
			home = os.TempDir()
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "lab", "archive.sqlite")
}

// IsPostgres reports whether location names a PostgreSQL database.
func IsPostgres(location string) bool {
	return strings.HasPrefix(location, "postgres://") || strings.HasPrefix(location, "postgresql://")
}

// Open opens (creating and migrating as needed) the archive at location:
// a postgres:// or postgresql:// URL, or a SQLite file path (optionally
// "sqlite:PATH").
func Open(ctx context.Context, location string) (*Store, error) {
	s := &Store{Kind: "sqlite", Where: location}
	var err error
	if IsPostgres(location) {
		s.Kind, s.Where = "postgres", redactURL(location)
		s.db, err = sql.Open("pgx", location)
	} else {
		path := strings.TrimPrefix(location, "sqlite:")
		s.Where = path
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, err)
		}
		// Immediate transactions: a writer takes the lock when it begins,
		// so two lab processes queue on busy_timeout instead of failing.
		s.db, err = sql.Open("sqlite", "file:"+path+"?_txlock=immediate&_pragma=busy_timeout(30000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)")
	}
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", s.Where, err)
	}
	if err := s.migrate(ctx); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("archive %s: %w", s.Where, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// q rewrites the SQL's ? placeholders as PostgreSQL's $1, $2 … for a
// PostgreSQL archive; the SQL is otherwise the same on both.
func (s *Store) q(query string) string {
	if s.Kind != "postgres" {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// redactURL drops a URL's password.
func redactURL(u string) string {
	at := strings.LastIndex(u, "@")
	scheme := strings.Index(u, "://")
	if at < 0 || scheme < 0 || at < scheme {
		return u
	}
	cred := u[scheme+3 : at]
	if user, _, ok := strings.Cut(cred, ":"); ok {
		return u[:scheme+3] + user + ":xxxxx" + u[at:]
	}
	return u
}

// errNewer is returned for an archive whose schema is newer than this lab.
var errNewer = errors.New("newer than this lab knows")

// Redacted is location without a URL's password, for messages.
func Redacted(location string) string {
	if IsPostgres(location) {
		return redactURL(location)
	}
	return location
}
