// Package state records every object a lab created, before and after it
// exists, so that nothing created can be lost: a versioned JSON file under
// the lab's .lab/ directory, written atomically, locked while in use.
package state

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/lab-bench/lab/machine"
)

// Version is the state file format version. Format 2 (lab 0.2) moved how
// the engine reaches a machine from Attrs into Instance.Endpoint; format 1
// files are upgraded as they are read.
const Version = 2

// Resource statuses.
const (
	// Pending: the create has started (or is about to); the object may or
	// may not exist. destroy treats it as existing.
	Pending = "pending"
	// Created: the object exists.
	Created = "created"
	// Tainted: something failed with the object (its delete, or its create
	// half-way); it must be destroyed and never reused.
	Tainted = "tainted"
)

// State is the content of the state file.
type State struct {
	Version int    `json:"version"`
	Lineage string `json:"lineage"`
	Serial  int64  `json:"serial"`
	// LabID is the lab the state's objects belong to, and Dir the lab
	// directory (absolute) it was written for; both are set by the first
	// command that changes anything (see Claim).
	LabID string `json:"lab_id"`
	Dir   string `json:"dir,omitempty"`
	// DirID identifies the .lab/ directory the state was written in
	// (device and inode, see DirID): it survives a rename of the lab
	// directory and not a copy, which is how a moved lab directory is
	// told from a copied one (see Claim).
	DirID string `json:"dir_id,omitempty"`
	// Resources in creation order.
	Resources []Resource `json:"resources"`
}

// Resource is one object a provider created.
type Resource struct {
	machine.Instance
	// ProviderKey is the spec's provider key ("local.default").
	ProviderKey string `json:"provider_key"`
	Status      string `json:"status"`
	// Shape is the hardware-shape fingerprint the object was made for;
	// a machine whose shape differs from the plan's must be replaced.
	Shape     string    `json:"shape,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Find returns the resource with the given address.
func (s *State) Find(address string) (*Resource, bool) {
	for i := range s.Resources {
		if s.Resources[i].Address == address {
			return &s.Resources[i], true
		}
	}
	return nil, false
}

// Put inserts or replaces the resource with r's address.
func (s *State) Put(r Resource) {
	if old, ok := s.Find(r.Address); ok {
		*old = r
		return
	}
	s.Resources = append(s.Resources, r)
}

// Remove drops the resource with the given address.
func (s *State) Remove(address string) {
	out := s.Resources[:0]
	for _, r := range s.Resources {
		if r.Address != address {
			out = append(out, r)
		}
	}
	s.Resources = out
}

// Fingerprint identifies this version of the state: a saved plan records it
// and refuses to apply once the state has moved on (another lineage, or a
// save since the plan was made).
func (s *State) Fingerprint() (lineage string, serial int64) {
	return s.Lineage, s.Serial
}

// Workspace is the short identity of this state's lab directory: the
// first 8 hex digits of its lineage. Every object lab creates carries it
// with the lab id (machine.Owner), so two checkouts of one lab never
// touch each other's machines.
func (s *State) Workspace() string {
	return Workspace(s.Lineage)
}

// Workspace is the workspace id of a lineage.
func Workspace(lineage string) string {
	w := strings.ReplaceAll(lineage, "-", "")
	if len(w) > 8 {
		w = w[:8]
	}
	return w
}

// Owner is who the objects of this state belong to.
func (s *State) Owner(lab string) machine.Owner {
	return machine.Owner{Lab: lab, Workspace: s.Workspace()}
}

// CopiedError is a state whose objects belong to another lab directory or
// another lab: the lab directory was copied (with its .lab/) or the lab
// renamed while machines exist.
type CopiedError struct {
	StateDir, Dir string
	StateLab, Lab string
	Objects       int
	// Workspace is the objects' workspace id.
	Workspace string
}

func (e *CopiedError) Error() string {
	if e.StateLab != e.Lab {
		return fmt.Sprintf("the state lists %d object(s) of lab %q, but the lab block now says %q: run `lab destroy` with the old name first, or remove .lab/ if those objects are gone",
			e.Objects, e.StateLab, e.Lab)
	}
	return fmt.Sprintf("the state in .lab/ belongs to the lab directory %s and lists %d object(s) there; this directory (%s) looks like a copy. "+
		"Its objects are the original's: remove .lab/ here to start a workspace of its own (the original keeps its machines). "+
		"If this is the original, moved to another file system or restored from a backup, and %s is gone: remove .lab/ here, "+
		"then `lab destroy -orphans -workspace %s` removes its objects",
		e.StateDir, e.Objects, e.Dir, e.StateDir, e.Workspace)
}

// Claim makes s the state of lab in directory dir (absolute), whose .lab/
// directory has identity dirID (DirID; "" when unknown). A state written
// for another lab that still lists objects is refused (*CopiedError); so
// is one written for another directory, unless it is this directory moved:
//
//   - the .lab/ directory is the one the state was written in (same
//     DirID: renamed or moved on one file system, which keeps its inode,
//     while a copy gets a new one);
//   - or, for a state written before lab recorded DirID, no state of this
//     lineage is left at the old path (the directory is gone from there).
//
// A moved state keeps its lineage, so its workspace id — which every
// object's tag carries with the lab id — is unchanged and destroy finds
// exactly its own objects. A state that lists no objects and was written
// for another directory or lab starts over as a new workspace.
func (s *State) Claim(lab, dir, dirID string) error {
	sameDir := s.Dir == "" || s.Dir == dir
	sameLab := s.LabID == "" || s.LabID == lab
	if !sameDir || !sameLab {
		if len(s.Resources) > 0 && (!sameLab || !s.movedTo(dirID)) {
			return &CopiedError{StateDir: s.Dir, Dir: dir, StateLab: s.LabID, Lab: lab, Objects: len(s.Resources), Workspace: s.Workspace()}
		}
		if len(s.Resources) == 0 {
			s.Lineage = NewLineage()
		}
	}
	s.LabID, s.Dir = lab, dir
	if dirID != "" {
		s.DirID = dirID
	}
	return nil
}

// movedTo tells whether the lab directory of s, written for s.Dir, is the
// one whose .lab/ has identity dirID, moved (see Claim).
func (s *State) movedTo(dirID string) bool {
	if s.DirID != "" {
		return dirID != "" && s.DirID == dirID
	}
	old, err := Store{Dir: filepath.Join(s.Dir, ".lab")}.Load()
	if err != nil {
		return false // unreadable: it may be the original's
	}
	return old.Lineage != s.Lineage // a fresh state (none there) has a new lineage
}

// DirID is the identity of the directory dir — its device and inode —,
// "" when it cannot be read.
func DirID(dir string) string {
	fi, err := os.Stat(dir)
	if err != nil {
		return ""
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}
