package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/redact"
)

func TestLoggerLevelsAndRedaction(t *testing.T) {
	tests := []struct {
		env      []string
		wantErr  string
		debug    bool
		trace    bool
		redacted bool
	}{
		{env: nil},
		{env: []string{"LAB_LOG=off"}},
		{env: []string{"LAB_LOG=debug", "GOVC_PASSWORD=hunter2-vc"}, debug: true, redacted: true},
		{env: []string{"LAB_LOG=trace"}, debug: true, trace: true},
		{env: []string{"LAB_LOG=loud"}, wantErr: `LAB_LOG="loud": use debug or trace`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		secrets := &redact.Set{}
		secrets.Add("GOVC_PASSWORD", envValue(tc.env, "GOVC_PASSWORD")) // as Main does
		log, err := newLogger(tc.env, &buf, secrets)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%v: err %v, want %q", tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if (log != nil) != tc.debug {
			t.Errorf("%v: logger %v", tc.env, log)
		}
		if log == nil {
			continue
		}
		secrets.Add("var", "s3cret-value") // added once the spec is loaded
		log.Debug("dial https://u:hunter2-vc@vc", "cmd", "sysctl -w x=s3cret-value", "err", errors.New("open /k/s3cret-value"))
		log.Log(t.Context(), -8, "step")
		out := buf.String()
		if strings.Contains(out, "s3cret-value") || tc.redacted && strings.Contains(out, "hunter2-vc") {
			t.Errorf("%v: secret in the log:\n%s", tc.env, out)
		}
		if !strings.Contains(out, "(sensitive value)") {
			t.Errorf("%v: nothing redacted:\n%s", tc.env, out)
		}
		if got := strings.Contains(out, "level=TRACE"); got != tc.trace {
			t.Errorf("%v: trace line shown %v, want %v:\n%s", tc.env, got, tc.trace, out)
		}
	}
}

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
