//go:build linux || freebsd

package plan

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lab-bench/lab/internal/state"
)

// TestSaveReportsFailedWrite makes the write of a saved plan itself fail
// (the file size limit stands in for a full disk) and checks Save says so
// and leaves the previous plan in place. Save used to drop the write's
// error and report success with a truncated plan renamed into place.
func TestSaveReportsFailedWrite(t *testing.T) {
	p, diags := New(load(t, twoShapes), &state.State{Lineage: "a", Serial: 3}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	path := filepath.Join(t.TempDir(), "plan")
	const previous = "previous plan"
	if err := os.WriteFile(path, []byte(previous), 0o600); err != nil {
		t.Fatal(err)
	}

	// Past the limit a write fails with EFBIG instead of raising SIGXFSZ.
	signal.Ignore(syscall.SIGXFSZ)
	defer signal.Reset(syscall.SIGXFSZ)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limit := old
	limit.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Skipf("cannot lower the file size limit: %v", err)
	}
	err := p.Save(path)
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatalf("restore the file size limit: %v", rerr)
	}

	if err == nil {
		t.Fatal("Save succeeded although its write failed")
	}
	if !errors.Is(err, syscall.EFBIG) || !strings.Contains(err.Error(), path) {
		t.Errorf("Save error %q: want it to wrap EFBIG and name %s", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != previous {
		t.Errorf("plan file = %.40q…, want the previous plan untouched", got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after a failed save, want the plan alone", len(entries))
	}
}
