package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
)

// TestLockTimeout: with the state lock held by another command, plan
// fails at once by default, waits with -lock-timeout (saying who holds
// the lock) and succeeds once it is released, or gives up at the end.
func TestLockTimeout(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(onlyLab), 0o644); err != nil {
		t.Fatal(err)
	}
	hold := func(t *testing.T, d time.Duration) {
		unlock, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Lock(state.NewLockInfo("only", "apply"))
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		t.Cleanup(func() { <-done })
		go func() {
			defer close(done)
			time.Sleep(d)
			_ = unlock()
		}()
	}
	tests := []struct {
		name     string
		held     time.Duration
		args     []string
		wantCode int
		want     []string
	}{
		{"no wait by default", 2 * time.Second, nil, 1, []string{"state is locked by apply"}},
		{"waits until released", 400 * time.Millisecond, []string{"-lock-timeout=10s"}, 0,
			[]string{"Waiting up to 10s for the state lock: state is locked by apply (pid "}},
		{"gives up", 3 * time.Second, []string{"-lock-timeout=300ms"}, 1, []string{"gave up after -lock-timeout=300ms: state is locked by apply"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hold(t, tc.held)
			code, out, errOut := runLab(t, "", append([]string{"-chdir=" + dir, "plan"}, tc.args...)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.wantCode, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestVarFileRelativeToChdir: with -chdir, a relative -var-file is read
// from the lab directory, as Terraform does, and a saved plan keeps it
// absolute.
func TestVarFileRelativeToChdir(t *testing.T) {
	labDir, start := t.TempDir(), t.TempDir()
	src := "lab \"vf\" {}\nvariable \"d\" { type = string }\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n" +
		"experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 { duration = var.d }\n}\n"
	if err := os.WriteFile(filepath.Join(labDir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(labDir, "my.labvars"), []byte("d = \"3s\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(start)
	code, out, errOut := runLab(t, "", "-chdir="+labDir, "plan", "-var-file=my.labvars", "-out="+filepath.Join(labDir, "saved.plan"))
	if code != 0 || !strings.Contains(out, "3s") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	saved, err := os.ReadFile(filepath.Join(labDir, "saved.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), filepath.Join(labDir, "my.labvars")) {
		t.Errorf("the saved plan does not keep the var file's absolute path:\n%s", saved)
	}
}
