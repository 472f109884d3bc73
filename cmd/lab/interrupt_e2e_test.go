package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// TestInterruptedRunIsFinalisedForReal interrupts a real apply after its
// first record — Ctrl-C (SIGINT), a closed terminal (SIGHUP), the reader
// of its output gone (SIGPIPE, as with `lab apply | tee` and Ctrl-C) — and
// checks what it leaves (issue 20, section 6): run.json on disk says
// "interrupted" with an end time, `lab show -json` says the same, the
// summary counts exactly the records on disk, and no namespace is left.
// Before, SIGHUP and SIGPIPE killed lab outright (run.json "running",
// machines up) and the summary counted the stopped run too.
func TestInterruptedRunIsFinalisedForReal(t *testing.T) {
	needNamespaces(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal // sent to lab; 0: close the reader of its stdout
	}{
		{"SIGINT", syscall.SIGINT},
		{"SIGHUP", syscall.SIGHUP},
		{"stdout reader gone", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labID := "e2e-int-" + strings.ToLower(strings.Fields(tc.name)[0])
			dir := labDir(t, labID, strings.Replace(twin("veth"), `duration = "1s"`, `duration = "3s"`, 1))
			cmd := labCmd(dir, "apply", "-auto-approve")
			cmd.Env = append(os.Environ(), "LAB_HOST_LOCK_DIR="+t.TempDir()) // not behind other labs' benchmarks
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			out := make(chan string, 1)
			if tc.sig != 0 {
				go func() {
					var b bytes.Buffer
					_, _ = b.ReadFrom(stdout)
					out <- b.String()
				}()
			}
			waitForRecord(t, dir)
			if tc.sig != 0 {
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			} else {
				stdout.Close() // lab's next write to stdout meets a broken pipe
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(90 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("lab did not end after the interrupt\n%s", stderr.String())
			}
			if st, ok := err.(*exec.ExitError); !ok || st.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1 (interrupted), not killed by the signal\n%s", err, stderr.String())
			}

			onDisk := runInfoOnDisk(t, dir)
			if onDisk.Status != results.StatusInterrupted || onDisk.Ended.IsZero() {
				t.Errorf("run.json on disk: status %q, ended %v; want interrupted with an end time", onDisk.Status, onDisk.Ended)
			}
			showOut, showErr, err := lab(t, dir, "show", "-json")
			var shown runJSON
			if err != nil || json.Unmarshal([]byte(showOut), &shown) != nil {
				t.Fatalf("show -json: %v\n%s%s", err, showOut, showErr)
			}
			if shown.Run.Status != onDisk.Status {
				t.Errorf("show says %q, run.json %q", shown.Run.Status, onDisk.Status)
			}
			recs := len(shown.Records)
			if tc.sig != 0 {
				summary := regexp.MustCompile(`Apply interrupted in \S+: (\d+) runs \((\d+) failed`).FindStringSubmatch(<-out)
				if summary == nil {
					t.Fatalf("no summary line in stdout; stderr:\n%s", stderr.String())
				}
				if n, _ := strconv.Atoi(summary[1]); n != recs || recs == 0 {
					t.Errorf("summary says %s runs, %d records are on disk", summary[1], recs)
				}
			}
			if left := namespaces(t, labID); len(left) != 0 {
				t.Errorf("left: %v", left)
			}
		})
	}
}

// waitForRecord waits until the lab in dir has written a record.
func waitForRecord(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "results", "*", "*", "*", "*", "r*.json")); len(m) > 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no record within 90s")
}

// runInfoOnDisk reads the only run's run.json as it is on disk.
func runInfoOnDisk(t *testing.T, dir string) results.RunInfo {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "results", "*", "run.json"))
	if len(m) != 1 {
		t.Fatalf("run.json files: %v", m)
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var info results.RunInfo
	if err := json.Unmarshal(data, &info); err != nil {
		t.Fatal(err)
	}
	return info
}
