package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
)

// TestClaim: a state is taken by its own lab directory, moved or not, and
// refused by a copy, whose objects are the original's (issue 20, section 6:
// a moved lab directory could not destroy its kept machines).
func TestClaim(t *testing.T) {
	const lineage = "1a2b3c4d-0000-4000-8000-000000000000"
	tests := []struct {
		name string
		// state as written: for the directory "orig" (under a temp dir),
		// with DirID stateID, and objects.
		stateID string
		objects int
		lab     string // the lab block now
		// claimedIn is where the command runs ("orig", "moved"); hereID
		// its .lab/ identity; origState: a state of this lineage is
		// still at orig.
		claimedIn string
		hereID    string
		origState bool
		// wantErr is "" or a substring; wantLineage: the lineage is kept.
		wantErr     string
		wantLineage bool
	}{
		{name: "same directory", stateID: "1:2", objects: 2, lab: "l", claimedIn: "orig", hereID: "1:2", origState: true, wantLineage: true},
		{name: "same directory, older state without DirID", objects: 2, lab: "l", claimedIn: "orig", hereID: "1:2", origState: true, wantLineage: true},
		{name: "moved: same .lab/ directory", stateID: "1:2", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:2", wantLineage: true},
		{name: "moved, and a copy now at the old path", stateID: "1:2", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:2", origState: true, wantLineage: true},
		{name: "copy: another .lab/, original still there", stateID: "1:2", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:9", origState: true,
			wantErr: "looks like a copy"},
		{name: "another .lab/ and the original gone (copied, or moved across file systems): refused, -workspace named",
			stateID: "1:2", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:9", wantErr: "lab destroy -orphans -workspace 1a2b3c4d"},
		{name: "older state without DirID, original gone: moved", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:9", wantLineage: true},
		{name: "older state without DirID, original still there: copy", objects: 2, lab: "l", claimedIn: "moved", hereID: "1:9", origState: true,
			wantErr: "looks like a copy"},
		{name: "lab renamed with objects", stateID: "1:2", objects: 2, lab: "other", claimedIn: "orig", hereID: "1:2", origState: true,
			wantErr: "the lab block now says \"other\""},
		{name: "copy without objects: a new workspace", stateID: "1:2", lab: "l", claimedIn: "moved", hereID: "1:9", origState: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			orig, here := filepath.Join(root, "orig"), filepath.Join(root, tt.claimedIn)
			s := &State{Version: Version, Lineage: lineage, LabID: "l", Dir: orig, DirID: tt.stateID}
			for i := range tt.objects {
				s.Put(Resource{Instance: machine.Instance{Address: string(rune('a' + i)), Kind: "machine"}, Status: Created})
			}
			if tt.origState {
				if err := os.MkdirAll(filepath.Join(orig, ".lab"), 0o700); err != nil {
					t.Fatal(err)
				}
				copyState := *s
				if err := (Store{Dir: filepath.Join(orig, ".lab")}).Save(&copyState); err != nil {
					t.Fatal(err)
				}
			}
			err := s.Claim(tt.lab, here, tt.hereID)
			if tt.wantErr != "" {
				var copied *CopiedError
				if !errors.As(err, &copied) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Claim: %v, want a *CopiedError with %q", err, tt.wantErr)
				}
				if s.Dir != orig || s.Lineage != lineage {
					t.Errorf("a refused claim changed the state: dir %s lineage %s", s.Dir, s.Lineage)
				}
				return
			}
			if err != nil {
				t.Fatalf("Claim: %v", err)
			}
			if (s.Lineage == lineage) != tt.wantLineage {
				t.Errorf("lineage %s, kept: %t, want kept: %t", s.Lineage, s.Lineage == lineage, tt.wantLineage)
			}
			if s.Dir != here || s.DirID != tt.hereID || s.LabID != tt.lab {
				t.Errorf("claimed as dir %s (%s) lab %s, want %s (%s) %s", s.Dir, s.DirID, s.LabID, here, tt.hereID, tt.lab)
			}
		})
	}
}

// TestDirIDSurvivesRenameNotCopy: DirID is the same after a rename and
// differs for a new directory (a copy).
func TestDirIDSurvivesRenameNotCopy(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	if err := os.Mkdir(a, 0o700); err != nil {
		t.Fatal(err)
	}
	before := DirID(a)
	if before == "" {
		t.Fatal("no DirID")
	}
	b := filepath.Join(root, "b")
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	if got := DirID(b); got != before {
		t.Errorf("DirID after rename %s, was %s", got, before)
	}
	if err := os.Mkdir(a, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := DirID(a); got == before {
		t.Errorf("a new directory at the old path has the same DirID %s", got)
	}
	if DirID(filepath.Join(root, "missing")) != "" {
		t.Error("DirID of a missing directory")
	}
}
