package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLockTwiceInOneProcessNamesHolder(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	holder := LockInfo{LabID: "lab-7f3a", Operation: "apply", Who: "root@host", PID: 1234, Created: time.Now()}
	unlock, err := st.Lock(holder)
	if err != nil {
		t.Fatal(err)
	}

	_, err = st.Lock(NewLockInfo("lab-7f3a", "destroy"))
	var locked *LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second Lock error = %v, want *LockedError", err)
	}
	for _, want := range []string{"locked by apply", "pid 1234", "root@host", "since " + holder.Created.Format("15:04:05"), "lab id lab-7f3a", "lock id "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}

	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(st.Dir, LockName)); len(data) != 0 {
		t.Errorf("lock file not truncated on unlock: %q", data)
	}
	unlock, err = st.Lock(NewLockInfo("lab-7f3a", "destroy"))
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock()
}

func TestLockTakesOverStaleLockFile(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	stale := `{"id":"dead","operation":"apply","who":"ghost@gone","pid":99999,"created":"2020-01-01T00:00:00Z"}`
	if err := os.WriteFile(filepath.Join(st.Dir, LockName), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	unlock, err := st.Lock(NewLockInfo("lab", "plan"))
	if err != nil {
		t.Fatalf("stale lock file not taken over: %v", err)
	}
	defer unlock()
	data, _ := os.ReadFile(filepath.Join(st.Dir, LockName))
	if strings.Contains(string(data), "ghost") || !strings.Contains(string(data), `"operation": "plan"`) {
		t.Errorf("lock file still names the stale holder:\n%s", data)
	}
}

func TestLockedErrorMessage(t *testing.T) {
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.Local)
	tests := []struct {
		name string
		err  LockedError
		want string
	}{
		{"unreadable info", LockedError{Path: "/l/.lab/state.lock"}, "state is locked by another process (lock file /l/.lab/state.lock)"},
		{"other day", LockedError{Holder: &LockInfo{ID: "ab12", LabID: "lab-1", Operation: "destroy", Who: "ann@box", PID: 42, Created: old}},
			"state is locked by destroy (pid 42, ann@box) since 2020-01-02 03:04:05; lab id lab-1; lock id ab12"},
		{"no ids", LockedError{Holder: &LockInfo{Operation: "plan", Who: "bob@box", PID: 7, Created: old}},
			"state is locked by plan (pid 7, bob@box) since 2020-01-02 03:04:05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestLockRemovesStrayTemps: the temporary files a save killed half-way
// left (kill -9) are removed by the next command to take the lock — only
// names of exactly atomicfile's pattern for state.json and its backup,
// only older than this process, and never while another holds the lock.
func TestLockRemovesStrayTemps(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	old := processStart.Add(-time.Hour)
	stray := []string{".state.json.tmp-123456", ".state.json.backup.tmp-42"}
	kept := []string{
		".state.json.tmp-12ab",    // not os.CreateTemp's digits
		".state.json.tmp-",        // no digits
		"state.json.tmp-1",        // no leading dot
		".results.json.tmp-1",     // another file's
		".state.json.tmp-1.keep",  // more after the digits
		"notes.txt",               // the user's
		".state.json.backup.tmp-", // no digits
	}
	for _, name := range append(append([]string{}, stray...), kept...) {
		path := filepath.Join(st.Dir, name)
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	young := filepath.Join(st.Dir, ".state.json.tmp-777") // made since this process started
	if err := os.WriteFile(young, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, filepath.Base(young))

	// Another holder: nothing is removed.
	unlock, err := st.Lock(NewLockInfo("lab", "apply"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range stray {
		if err := os.WriteFile(filepath.Join(st.Dir, name), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(st.Dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Lock(NewLockInfo("lab", "destroy")); err == nil {
		t.Fatal("second Lock succeeded")
	}
	for _, name := range stray {
		if _, err := os.Stat(filepath.Join(st.Dir, name)); err != nil {
			t.Errorf("%s was removed while another held the lock: %v", name, err)
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}

	unlock, err = st.Lock(NewLockInfo("lab", "destroy"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, name := range stray {
		if _, err := os.Stat(filepath.Join(st.Dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stray %s was not removed (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(st.Dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

// TestLockRefusesSymlink: a state.lock that is a symlink is not followed
// (and its target not truncated).
func TestLockRefusesSymlink(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	target := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(st.Dir, LockName)); err != nil {
		t.Fatal(err)
	}
	if unlock, err := st.Lock(NewLockInfo("lab", "apply")); err == nil {
		unlock()
		t.Error("Lock followed a symlink")
	} else if !strings.Contains(err.Error(), LockName) {
		t.Errorf("error %v does not name the lock file", err)
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Errorf("the symlink's target was written: %q", got)
	}
}
