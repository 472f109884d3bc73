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
