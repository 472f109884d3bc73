// Package state records every object a lab created, before and after it
// exists, so that nothing created can be lost: a versioned JSON file under
// the lab's .lab/ directory, written atomically, locked while in use.
package state

import (
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/providers"
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
	// Resources in creation order.
	Resources []Resource `json:"resources"`
}

// Resource is one object a provider created.
type Resource struct {
	providers.Instance
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
// with the lab id (providers.Owner), so two checkouts of one lab never
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
func (s *State) Owner(lab string) providers.Owner {
	return providers.Owner{Lab: lab, Workspace: s.Workspace()}
}

// CopiedError is a state whose objects belong to another lab directory or
// another lab: the lab directory was copied (with its .lab/) or the lab
// renamed while machines exist.
type CopiedError struct {
	StateDir, Dir string
	StateLab, Lab string
	Objects       int
}

func (e *CopiedError) Error() string {
	if e.StateLab != e.Lab {
		return fmt.Sprintf("the state lists %d object(s) of lab %q, but the lab block now says %q: run `lab destroy` with the old name first, or remove .lab/ if those objects are gone",
			e.Objects, e.StateLab, e.Lab)
	}
	return fmt.Sprintf("the state in .lab/ belongs to the lab directory %s and lists %d object(s) there; this directory (%s) looks like a copy. "+
		"Its objects are the original's: remove .lab/ here to start a workspace of its own (the original keeps its machines)",
		e.StateDir, e.Objects, e.Dir)
}

// Claim makes s the state of lab in directory dir (absolute). A state
// written for another directory or lab that still lists objects is
// refused (*CopiedError): those objects are not this workspace's. One that
// lists none starts over as a new workspace (a new lineage).
func (s *State) Claim(lab, dir string) error {
	sameDir := s.Dir == "" || s.Dir == dir
	sameLab := s.LabID == "" || s.LabID == lab
	if !sameDir || !sameLab {
		if len(s.Resources) > 0 {
			return &CopiedError{StateDir: s.Dir, Dir: dir, StateLab: s.LabID, Lab: lab, Objects: len(s.Resources)}
		}
		s.Lineage = NewLineage()
	}
	s.LabID, s.Dir = lab, dir
	return nil
}
