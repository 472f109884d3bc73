package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/lab-bench/lab/machine"
)

func TestLoadMissingGivesFreshState(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	s, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != Version || s.Serial != 0 {
		t.Errorf("fresh state = version %d serial %d, want %d 0", s.Version, s.Serial, Version)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(s.Lineage) {
		t.Errorf("lineage %q is not UUID-like", s.Lineage)
	}
	if other, _ := st.Load(); other.Lineage == s.Lineage {
		t.Errorf("two fresh states share lineage %q", s.Lineage)
	}
}

func TestSaveKeepsLineageAndCountsSerial(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	s, _ := st.Load()
	lineage := s.Lineage
	for want := int64(1); want <= 3; want++ {
		s.Put(Resource{Instance: machine.Instance{Address: fmt.Sprintf("pair.p%d.server", want)}, Status: Created})
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
		got, err := st.Load()
		if err != nil {
			t.Fatal(err)
		}
		if l, serial := got.Fingerprint(); l != lineage || serial != want {
			t.Errorf("after save %d: fingerprint (%s, %d), want (%s, %d)", want, l, serial, lineage, want)
		}
		if len(got.Resources) != int(want) {
			t.Errorf("after save %d: %d resources", want, len(got.Resources))
		}
	}
}

func TestSaveWritesBackupAndMode0600(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	s, _ := st.Load()
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.BackupPath()); !os.IsNotExist(err) {
		t.Errorf("first save wrote a backup (stat err %v)", err)
	}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	var backup State
	readJSON(t, st.BackupPath(), &backup)
	if backup.Serial != 1 {
		t.Errorf("backup serial = %d, want 1", backup.Serial)
	}
	for _, p := range []string{st.Path(), st.BackupPath()} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
	assertNoTemps(t, st.Dir)
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"newer version", `{"version": 99, "lineage": "x", "serial": 3}`, "newer than this lab understands"},
		{"corrupt", `{"version": 1, "lineage": `, "is corrupt"},
		{"empty", ``, "is corrupt"},
		{"no version", `{"lineage": "x"}`, "no valid format version"},
		{"no lineage", `{"version": 1}`, "no lineage"},
		{"wrong type", `{"version": 1, "lineage": "x", "serial": "one"}`, "is corrupt"},
		{"negative serial", `{"version": 2, "lineage": "x", "serial": -5}`, "serial -5 is negative"},
		{"unknown status", `{"version": 2, "lineage": "x", "serial": 1, "resources": [
			{"address": "pair.p.server", "kind": "machine", "status": "exploded"}]}`, `resource 1 (pair.p.server) has status "exploded"`},
		{"no status", `{"version": 2, "lineage": "x", "serial": 1, "resources": [
			{"address": "pair.p.server", "kind": "machine"}]}`, `resource 1 (pair.p.server) has status ""`},
		{"no address", `{"version": 2, "lineage": "x", "serial": 1, "resources": [
			{"address": "pair.p.server", "kind": "machine", "status": "created"}, {"kind": "link", "status": "created"}]}`, "resource 2 has no address"},
		{"one address twice", `{"version": 2, "lineage": "x", "serial": 1, "resources": [
			{"address": "pair.p.server", "kind": "machine", "status": "created"},
			{"address": "pair.p.server", "kind": "machine", "status": "tainted"}]}`, "resource 2 (pair.p.server) is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Store{Dir: t.TempDir()}
			if err := os.WriteFile(st.Path(), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := st.Load()
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), st.Path()) {
				t.Errorf("error %q: want it to contain %q and the file name", err, tt.want)
			}
		})
	}
}

// TestStateFileMustBeRegular: a state.json (or its backup) that is a
// symlink, FIFO or device is refused by name, never read (a FIFO would
// block) nor replaced, and nothing is left behind.
func TestStateFileMustBeRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
	}{
		{"symlink", func(path string) error { return os.Symlink("/dev/null", path) }},
		{"FIFO", func(path string) error { return syscall.Mkfifo(path, 0o600) }},
		{"directory", func(path string) error { return os.Mkdir(path, 0o700) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Store{Dir: t.TempDir()}
			if err := tt.make(st.Path()); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Lstat(st.Path())
			if _, err := st.Load(); err == nil || !strings.Contains(err.Error(), st.Path()) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Load: %v", err)
			}
			err := st.Save(&State{Version: Version, Lineage: NewLineage()})
			if err == nil || !strings.Contains(err.Error(), st.Path()) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Save: %v", err)
			}
			if after, err := os.Lstat(st.Path()); err != nil || !os.SameFile(before, after) {
				t.Errorf("%s was replaced (%v)", st.Path(), err)
			}
			assertNoTemps(t, st.Dir)
		})
	}
	// The backup is replaced only if it is a regular file, too.
	st := Store{Dir: t.TempDir()}
	s := &State{Version: Version, Lineage: NewLineage()}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", st.BackupPath()); err != nil {
		t.Fatal(err)
	}
	if err := st.Save(s); err == nil || !strings.Contains(err.Error(), st.BackupPath()) {
		t.Errorf("Save over a symlinked backup: %v", err)
	}
	if fi, err := os.Lstat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a character device: %v %v", fi, err)
	}
}

// failAfter writes n bytes and then fails, like a disk filling up.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n, _ := f.w.Write(p[:f.n])
		f.n -= n
		return n, errors.New("disk full")
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func TestSaveFailingHalfWayKeepsOldFile(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	s, _ := st.Load()
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(st.Path())

	s.Put(Resource{Instance: machine.Instance{Address: "pair.big.server", Name: strings.Repeat("x", 4096)}, Status: Created})
	broken := st
	broken.wrap = func(w io.Writer) io.Writer { return &failAfter{w: w, n: 100} }
	err := broken.Save(s)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Save error = %v, want disk full", err)
	}
	if s.Serial != 1 {
		t.Errorf("serial after failed save = %d, want 1 (unchanged)", s.Serial)
	}
	after, _ := os.ReadFile(st.Path())
	if string(after) != string(before) {
		t.Errorf("state file changed by a failed save:\n%s", after)
	}
	assertNoTemps(t, st.Dir)

	// The next good save carries on from the unchanged serial.
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Load(); got.Serial != 2 {
		t.Errorf("serial after recovery = %d, want 2", got.Serial)
	}
}

func TestSaveScrubsSecrets(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	s, _ := st.Load()
	attrs := map[string]string{"addr": "198.18.0.2", "Password": "hunter2", "api_token": "t0k", "client_secret": "s"}
	s.Put(Resource{Instance: machine.Instance{Address: "pair.a.server", Attrs: attrs}, Status: Created})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(st.Path())
	for _, secret := range []string{"hunter2", "t0k", "client_secret"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("state file contains %q:\n%s", secret, data)
		}
	}
	if !strings.Contains(string(data), "198.18.0.2") {
		t.Errorf("state file lost a plain attribute:\n%s", data)
	}
	if len(attrs) != 4 {
		t.Errorf("Save modified the caller's attrs: %v", attrs)
	}
}

func TestScrub(t *testing.T) {
	tests := []struct {
		in   map[string]string
		want []string // keys kept
	}{
		{nil, nil},
		{map[string]string{"addr": "a", "netns": "n"}, []string{"addr", "netns"}},
		{map[string]string{"password": "p", "PASSWORD_FILE": "f", "sshToken": "t", "secret": "s", "iface": "i"}, []string{"iface"}},
	}
	for _, tt := range tests {
		Scrub(tt.in)
		if len(tt.in) != len(tt.want) {
			t.Errorf("Scrub kept %v, want keys %v", tt.in, tt.want)
		}
		for _, k := range tt.want {
			if _, ok := tt.in[k]; !ok {
				t.Errorf("Scrub dropped %q", k)
			}
		}
	}
}

func TestConcurrentSaves(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	shared, _ := st.Load()
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() { // every goroutine saves the shared state …
			defer wg.Done()
			errs <- st.Save(shared)
		}()
		go func() { // … and a state of its own, with another lineage
			defer wg.Done()
			own := &State{Version: Version, Lineage: NewLineage(), Resources: []Resource{{Instance: machine.Instance{Address: fmt.Sprint(i)}, Status: Created}}}
			errs <- st.Save(own)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if shared.Serial != n {
		t.Errorf("shared serial = %d, want %d", shared.Serial, n)
	}
	if _, err := st.Load(); err != nil {
		t.Errorf("state after concurrent saves: %v", err)
	}
	var backup State
	readJSON(t, st.BackupPath(), &backup)
	assertNoTemps(t, st.Dir)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// swapSealer seals one secret as a placeholder and unseals it back.
type swapSealer struct{ secret, placeholder string }

func (s swapSealer) Seal(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), s.secret, s.placeholder))
}

func (s swapSealer) Unseal(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), s.placeholder, s.secret))
}

// TestSecretsSealedOnDisk: with Secrets, neither the state file nor its
// backup holds the secret, and Load gives it back.
func TestSecretsSealedOnDisk(t *testing.T) {
	sealer := swapSealer{secret: "/s3cret/key", placeholder: "(sensitive value var.k)"}
	st := Store{Dir: t.TempDir(), Secrets: sealer}
	s := &State{}
	s.Put(Resource{Instance: machine.Instance{Address: "pair.a.server", Kind: "machine",
		Attrs: map[string]string{"key": "/s3cret/key/id"}}, Status: Created})
	for range 2 { // the second save makes a backup
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{st.Path(), st.BackupPath()} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), sealer.secret) || !strings.Contains(string(b), sealer.placeholder) {
			t.Errorf("%s:\n%s", p, b)
		}
	}
	back, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := back.Find("pair.a.server"); !ok || r.Attrs["key"] != "/s3cret/key/id" {
		t.Errorf("loaded %+v", back.Resources)
	}
}
