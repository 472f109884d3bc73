package state

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lab-bench/lab/internal/atomicfile"
)

// File names inside a lab's .lab/ directory.
const (
	FileName   = "state.json"
	BackupName = "state.json.backup"
	LockName   = "state.lock"
)

// fileMode is the mode of every file the store writes: state names machines,
// addresses and credentials' locations, so it is the owner's only.
const fileMode = 0o600

// Store keeps one lab's state under Dir (the lab's .lab/ directory).
// Callers hold the lock (see Lock) around a Load … Save sequence.
type Store struct {
	Dir string
	// Secrets, when set, keeps sensitive values out of the file: Seal
	// replaces them in what is written, Unseal puts them back in what is
	// read (so a machine is still reached with the spec's key path).
	Secrets Sealer

	// wrap, when set, wraps the writer of a save's temporary file; tests
	// use it to fail a write half-way.
	wrap func(io.Writer) io.Writer
}

// Sealer replaces secrets in JSON on the way out and back (redact.Set).
type Sealer interface {
	Seal([]byte) []byte
	Unseal([]byte) []byte
}

// saveMu serialises saves within the process, so that concurrent callers
// sharing one *State cannot race on its serial or interleave their renames.
var saveMu sync.Mutex

// Path is the state file's path.
func (st Store) Path() string { return filepath.Join(st.Dir, FileName) }

// BackupPath is the path of the previous state file.
func (st Store) BackupPath() string { return filepath.Join(st.Dir, BackupName) }

// Load reads the state file. A missing file gives a fresh state with a new
// lineage and serial 0; a file written by a newer lab, or one that does not
// parse, is an error naming the file (Load never silently starts over).
func (st Store) Load() (*State, error) {
	path := st.Path()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: Version, Lineage: NewLineage()}, nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		// A FIFO would block the read; a symlink or device is not lab's.
		return nil, fmt.Errorf("state file %s is not a regular file (%v): lab reads and writes only a regular file there", path, fi.Mode().Type())
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	if st.Secrets != nil {
		data = st.Secrets.Unseal(data)
	}
	return decode(path, data)
}

// decode reads a state file's contents; path names it in errors.
func decode(path string, data []byte) (*State, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("state file %s is corrupt (%v); its previous version is in %s", path, err, BackupName)
	}
	switch {
	case probe.Version == nil || *probe.Version < 1:
		return nil, fmt.Errorf("state file %s has no valid format version", path)
	case *probe.Version > Version:
		return nil, fmt.Errorf("state file %s has format version %d, newer than this lab understands (%d): upgrade lab", path, *probe.Version, Version)
	}
	s := new(State)
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("state file %s is corrupt (%v); its previous version is in %s", path, err, BackupName)
	}
	if s.Lineage == "" {
		return nil, fmt.Errorf("state file %s has no lineage", path)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("state file %s is not valid: %w; its previous version is in %s", path, err, BackupName)
	}
	if s.Version < 2 {
		for i := range s.Resources {
			v1Endpoint(&s.Resources[i])
		}
		s.Version = Version
	}
	return s, nil
}

// validate refuses what no lab writes: a negative serial, a resource
// without an address or with an unknown status, two resources at
// one address. A state lab cannot trust is not acted on (destroy would
// otherwise skip or double-delete objects on a guess).
func (s *State) validate() error {
	if s.Serial < 0 {
		return fmt.Errorf("serial %d is negative (it counts saves from 0)", s.Serial)
	}
	seen := map[string]bool{}
	for i, r := range s.Resources {
		what := fmt.Sprintf("resource %d", i+1)
		if r.Address == "" {
			return fmt.Errorf("%s has no address", what)
		}
		what += " (" + r.Address + ")"
		if seen[r.Address] {
			return fmt.Errorf("%s is listed twice", what)
		}
		seen[r.Address] = true
		switch r.Status {
		case Pending, Created, Tainted:
		default:
			return fmt.Errorf("%s has status %q; a state lists %q, %q or %q", what, r.Status, Pending, Created, Tainted)
		}
	}
	return nil
}

// Save increments s.Serial and writes s atomically: a temporary file in the
// same directory (mode 0600) is written and synced, the current state file
// is copied to state.json.backup, the temporary file is renamed over
// state.json and the directory is synced. A failure at any step leaves the
// previous state file intact and s.Serial unchanged. Secrets are scrubbed
// from every resource's Attrs on the way out (s itself is not modified).
func (st Store) Save(s *State) error {
	saveMu.Lock()
	defer saveMu.Unlock()

	if s.Version == 0 {
		s.Version = Version
	}
	if s.Lineage == "" {
		s.Lineage = NewLineage()
	}
	s.Serial++
	if err := st.save(scrubbed(s)); err != nil {
		s.Serial--
		return err
	}
	return nil
}

func (st Store) save(s *State) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	data = st.seal(append(data, '\n'))
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	next, err := atomicfile.Prepare(st.Path(), fileMode, st.fill(data))
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer next.Discard() // a no-op once committed

	if err := st.backup(); err != nil {
		return fmt.Errorf("save state: back up %s: %w", FileName, err)
	}
	if err := next.Commit(); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}

// fill returns the writer of data into a save's temporary file, through
// st.wrap when set.
func (st Store) fill(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		if st.wrap != nil {
			w = st.wrap(w)
		}
		_, err := w.Write(data)
		return err
	}
}

// backup copies the current state file (if any) to the backup file, itself
// atomically, so that the backup is always a complete earlier state. Like
// state.json, the backup is replaced only if it is a regular file
// (atomicfile.Replace).
func (st Store) backup() error {
	data, err := os.ReadFile(st.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return atomicfile.Replace(st.BackupPath(), fileMode, st.fill(st.seal(data)))
}

// seal replaces the secrets in data, when the store knows them.
func (st Store) seal(data []byte) []byte {
	if st.Secrets == nil {
		return data
	}
	return st.Secrets.Seal(data)
}

// secretWords mark attribute keys that are never written to disk.
var secretWords = []string{"password", "secret", "token"}

// Scrub deletes from attrs every key that contains "password", "secret" or
// "token" (in any case).
func Scrub(attrs map[string]string) {
	for k := range attrs {
		lk := strings.ToLower(k)
		for _, w := range secretWords {
			if strings.Contains(lk, w) {
				delete(attrs, k)
				break
			}
		}
	}
}

// scrubbed returns a copy of s whose resources' Attrs have been scrubbed.
func scrubbed(s *State) *State {
	out := *s
	out.Resources = make([]Resource, len(s.Resources))
	for i, r := range s.Resources {
		if r.Attrs != nil {
			attrs := make(map[string]string, len(r.Attrs))
			for k, v := range r.Attrs {
				attrs[k] = v
			}
			Scrub(attrs)
			r.Attrs = attrs
		}
		out.Resources[i] = r
	}
	return &out
}

// NewLineage returns a new random lineage in the UUID text layout.
func NewLineage() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("state: no randomness: " + err.Error()) // crypto/rand does not fail on supported systems
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
