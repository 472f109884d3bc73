// Package state records every object a lab created, before and after it
// exists, so that nothing created can be lost: a versioned JSON file under
// the lab's .lab/ directory, written atomically, locked while in use.
package state

import (
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
	LabID   string `json:"lab_id"`
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
