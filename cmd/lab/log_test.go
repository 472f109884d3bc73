package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLogTracesProviderCallsAndCommandsForReal: LAB_LOG=debug with
// LAB_LOG_PATH logs every provider call and guest command of a real apply,
// with timing and exit status.
func TestLogTracesProviderCallsAndCommandsForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-log", strings.ReplaceAll(smallLab, "%s", "1s"))
	logPath := filepath.Join(t.TempDir(), "lab.log")
	cmd := labCmd(dir, "apply", "-auto-approve")
	cmd.Env = append(os.Environ(), "LAB_LOG=debug", "LAB_LOG_PATH="+logPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, re := range []string{
		`msg="provider call" provider=local.default call=Create elapsed=\S+ address=pair.veth.server`,
		`msg="provider call" provider=local.default call=Delete elapsed=\S+ address=pair.veth.link`,
		`msg="guest command" guest=pair.veth.client cmd="[^"]*iperf3 [^"]*" elapsed=\S+ exit=0`,
		`msg="guest command" guest=pair.veth.server cmd="ip link set dev eth0 mtu 9000" elapsed=\S+ exit=0`,
	} {
		if !regexp.MustCompile(re).MatchString(log) {
			t.Errorf("log lacks %s", re)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log)
	}
	if fi, err := os.Stat(logPath); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("log file mode %v, want 0600", fi.Mode().Perm())
	}
}

func labCmd(dir string, args ...string) *exec.Cmd {
	return exec.Command(labBin, append([]string{"-chdir=" + dir}, args...)...)
}
