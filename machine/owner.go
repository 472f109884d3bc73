package machine

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Owner is who an object lab creates belongs to: a lab (the lab block's
// name) in one workspace (one lab directory's state, identified by a
// short form of the state's lineage). Two checkouts of one lab are two
// workspaces; their objects never match each other's.
type Owner struct {
	Lab       string `json:"lab"`
	Workspace string `json:"workspace"`
}

// tagPrefix starts every owner tag; the version lets the format change.
const tagPrefix = "lab/1 "

// Tag is the text a back end attaches to an object it creates for o at
// address (a veth alias, a VM annotation line, libvirt metadata, an
// interface description): "lab/1 lab=<lab> ws=<workspace> addr=<address>".
func (o Owner) Tag(address string) string {
	return tagPrefix + "lab=" + o.Lab + " ws=" + o.Workspace + " addr=" + address
}

// ParseTag reads a Tag. ok is false for anything else (including tags of
// earlier lab versions, which named no workspace).
func ParseTag(s string) (o Owner, address string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), tagPrefix)
	if !found {
		return Owner{}, "", false
	}
	f := strings.Fields(rest)
	if len(f) != 3 {
		return Owner{}, "", false
	}
	lab, ok1 := strings.CutPrefix(f[0], "lab=")
	ws, ok2 := strings.CutPrefix(f[1], "ws=")
	addr, ok3 := strings.CutPrefix(f[2], "addr=")
	if !ok1 || !ok2 || !ok3 || lab == "" || ws == "" {
		return Owner{}, "", false
	}
	return Owner{Lab: lab, Workspace: ws}, addr, true
}

// AnyWorkspace as an Owner's workspace makes List find a lab's objects of
// every workspace — for reporting what other checkouts own, never for
// deleting it.
const AnyWorkspace = "*"

// Owns reports whether tag is o's: lab and workspace equal exactly (any
// workspace when o.Workspace is AnyWorkspace).
func (o Owner) Owns(tag string) bool {
	t, _, ok := ParseTag(tag)
	return ok && t.Lab == o.Lab && (t.Workspace == o.Workspace || o.Workspace == AnyWorkspace)
}

// Hash is n hex digits of a hash of o and parts: short, stable names for
// objects whose names are limited (Linux interface names are 15 bytes)
// that differ between labs, workspaces and addresses.
func (o Owner) Hash(n int, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{o.Lab, o.Workspace}, parts...) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:n]
}
