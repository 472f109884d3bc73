package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/results"
)

// TestLockFileForReal: the first apply writes .lab.lock.hcl; a drifted
// kernel is a warning, or a refusal with -locked; init -upgrade accepts
// the observed values; results carry the lock's digest.
func TestLockFileForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-lockfile", strings.ReplaceAll(smallLab, "%s", "1s"))
	lockPath := filepath.Join(dir, lockfile.FileName)
	// Each step is checked for what it left, so that a leak names the
	// step and its output (CI once found two namespaces left at the end).
	noneLeft := func(step, stderr string) {
		t.Helper()
		if left := namespaces(t, "e2e-lockfile"); len(left) > 0 {
			t.Errorf("%s left %v; its stderr:\n%s", step, left, stderr)
		}
	}

	if out, stderr, err := lab(t, dir, "apply", "-auto-approve"); err != nil || !strings.Contains(out, "Wrote "+lockfile.FileName) {
		t.Fatalf("first apply: %v\n%s%s", err, out, stderr)
	} else {
		noneLeft("the first apply", stderr)
	}
	src, err := os.ReadFile(lockPath)
	if err != nil || !strings.Contains(string(src), `machine "pair.veth.server"`) || !strings.Contains(string(src), `tool "iperf3"`) ||
		!regexp.MustCompile(`template = "linux [^"]+; iperf 3`).Match(src) {
		t.Fatalf("lock file (want the template identity: kernel and tool versions): %v\n%s", err, src)
	}
	// Pretend the lock was written on another kernel.
	drifted := regexp.MustCompile(`kernel( *)= "[^"]*"`).ReplaceAllString(string(src), `kernel$1= "5.10.0-old"`)
	os.WriteFile(lockPath, []byte(drifted), 0o644)

	_, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err != nil || !strings.Contains(stderr, "drift from "+lockfile.FileName) {
		t.Errorf("apply on drift should warn and succeed: %v\n%s", err, stderr)
	}
	noneLeft("the apply on drift", stderr)
	_, stderr, err = lab(t, dir, "apply", "-auto-approve", "-locked")
	if err == nil || !strings.Contains(stderr, "-locked") || !strings.Contains(stderr, "5.10.0-old") {
		t.Errorf("apply -locked on drift should refuse: %v\n%s", err, stderr)
	}
	noneLeft("the apply -locked on drift", stderr)
	if out, stderr, err := lab(t, dir, "init", "-upgrade"); err != nil || !strings.Contains(out, "5.10.0-old") {
		t.Errorf("init -upgrade: %v\n%s%s", err, out, stderr)
	}
	if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-locked"); err != nil {
		t.Errorf("apply -locked after upgrade: %v\n%s%s", err, out, stderr)
	} else {
		noneLeft("the apply -locked after upgrade", stderr)
	}
	now, _ := os.ReadFile(lockPath)
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil || len(recs) == 0 || recs[0].Provenance.LockDigest != lockfile.Digest(now) {
		t.Errorf("results do not carry the lock digest: %v", err)
	}

	// The template changed (here: the host's kernel and tools): plan warns,
	// naming the template and the machine.
	changed := regexp.MustCompile(`template = "[^"]*"`).ReplaceAllString(string(now), `template = "linux 5.10.0-old; iperf 3.9"`)
	os.WriteFile(lockPath, []byte(changed), 0o644)
	if _, stderr, err := lab(t, dir, "plan"); err != nil || !strings.Contains(stderr, `template "host" of pair.veth.server changed`) ||
		!strings.Contains(stderr, "linux 5.10.0-old; iperf 3.9") {
		t.Errorf("plan after the template changed should warn naming it: %v\n%s", err, stderr)
	}
	// -locked refuses the changed template before it creates anything.
	out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-locked")
	if err == nil || !strings.Contains(stderr, `template "host" of pair.veth.server: locked "linux 5.10.0-old; iperf 3.9"`) ||
		!strings.Contains(stderr, "nothing was created") || strings.Contains(out, ": creating ") {
		t.Errorf("apply -locked on a changed template should refuse before creating: %v\n%s%s", err, out, stderr)
	}
	noneLeft("the apply -locked on a changed template", stderr)
}
