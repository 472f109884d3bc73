package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// These tests run the real binary as a user would: real namespaces, real
// iperf3. They need root, iproute2 and iperf3, and skip otherwise.

var labBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "labbin")
	if err != nil {
		panic(err)
	}
	labBin = filepath.Join(dir, "lab")
	out, err := exec.Command("go", "build", "-o", labBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build lab: %v\n%s", err, out)
		os.Exit(1)
	}
	// Every apply archives its run (issue 34); the suite's go to a file of
	// its own, not to the user's ~/.local/share/lab/archive.sqlite.
	if os.Getenv("LAB_ARCHIVE") == "" {
		os.Setenv("LAB_ARCHIVE", filepath.Join(dir, "archive.sqlite"))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needNamespaces skips a test that needs root and the local back end's
// tools — except under CI (CI=true), where a missing prerequisite is a
// failure: CI installs them, so a skip there would hide a broken setup.
func needNamespaces(t *testing.T) {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("CI") == "true" {
		skip = t.Fatalf
	}
	if os.Geteuid() != 0 {
		skip("needs root for network namespaces")
	}
	for _, b := range []string{"ip", "iperf3", "ethtool", "taskset"} {
		if _, err := exec.LookPath(b); err != nil {
			skip("needs %s", b)
		}
	}
}

// labDir writes a lab with a unique name into a temp dir and returns it.
func labDir(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf("lab %q {}\n%s", name, body)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sweep(t, name) })
	return dir
}

// namespaces lists this lab's namespaces left on the machine.
func namespaces(t *testing.T, labID string) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	var left []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && strings.HasPrefix(f[0], "lab-"+labID+"-") {
			left = append(left, f[0])
		}
	}
	return left
}

// sweep removes whatever a failed test left, so one failure does not
// leak namespaces into the machine.
func sweep(t *testing.T, labID string) {
	for _, ns := range namespaces(t, labID) {
		t.Errorf("leftover namespace %s (removing it)", ns)
		exec.Command("ip", "netns", "del", ns).Run()
	}
}

func lab(t testing.TB, dir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(labBin, append([]string{"-chdir=" + dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

const smallLab = `
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "%s"
    omit     = "0s"
  }
}
`

func TestApplyQuickstartForReal(t *testing.T) {
	needNamespaces(t)
	src, err := os.ReadFile("../../examples/quickstart/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The quickstart itself, under a name of its own so a concurrent demo
	// on the same machine cannot collide with the test.
	body := strings.Replace(string(src), `lab "quickstart"`, `lab "e2e-quick"`, 1)
	os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644)
	t.Cleanup(func() { sweep(t, "e2e-quick") })

	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, "Gb/s") {
		t.Errorf("apply printed no result table:\n%s", stdout)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, err := rs.Latest()
	if err != nil {
		t.Fatal(err)
	}
	info, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != "complete" {
		t.Errorf("run status %q", info.Status)
	}
	if len(recs) != 8 {
		t.Fatalf("got %d records, want 8 (2 mtu x 2 gro x 2 streams)", len(recs))
	}
	for _, r := range recs {
		if r.Error != "" {
			t.Errorf("%s: %s", r.CellKey, r.Error)
			continue
		}
		if r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: throughput %v", r.CellKey, r.Metrics.ThroughputBps)
		}
		if r.Observed.Server.MTU != r.Intent.Server.MTU || r.Observed.Client.MTU != r.Intent.Client.MTU {
			t.Errorf("%s: observed MTU %d/%d, asked %d", r.CellKey, r.Observed.Server.MTU, r.Observed.Client.MTU, r.Intent.Server.MTU)
		}
		if r.Metrics.ServerCPU.Busy <= 0 || r.Metrics.ClientCPU.Busy <= 0 {
			t.Errorf("%s: system-wide CPU not sampled: %+v %+v", r.CellKey, r.Metrics.ServerCPU, r.Metrics.ClientCPU)
		}
		if r.Provenance.LabFileHash == "" || r.Provenance.ServerKernel == "" || r.Provenance.ToolVersion == "" {
			t.Errorf("%s: provenance incomplete: %+v", r.CellKey, r.Provenance)
		}
		if len(r.Raw.ServerArgv) == 0 || len(r.Raw.ClientArgv) == 0 {
			t.Errorf("%s: command lines not kept: %q %q", r.CellKey, r.Raw.ServerArgv, r.Raw.ClientArgv)
		}
	}
	if show, _, err := lab(t, dir, "show", "latest"); err != nil || !strings.Contains(show, "      client  ") {
		t.Errorf("show latest: %v, no command lines:\n%s", err, show)
	}
	if left := namespaces(t, "e2e-quick"); len(left) > 0 {
		t.Errorf("namespaces left after apply: %v", left)
	}
	out, _, err := lab(t, dir, "state", "list")
	if err != nil || !strings.Contains(out, "no objects") {
		t.Errorf("state after apply: %v\n%s", err, out)
	}
	rep, _, err := lab(t, dir, "report", "-format", "markdown")
	if err != nil || !strings.Contains(rep, "| mtu") {
		t.Errorf("report markdown: %v\n%s", err, rep)
	}
}

// startApply starts `lab apply -json` and returns the command and a
// channel of its events.
func startApply(t *testing.T, dir string, extra ...string) (*exec.Cmd, <-chan map[string]any, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(labBin, append([]string{"-chdir=" + dir, "apply", "-auto-approve", "-json"}, extra...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan map[string]any, 100)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
	}()
	return cmd, events, &stderr
}

// waitFor reads events until one of the given type arrives.
func waitFor(t *testing.T, events <-chan map[string]any, typ string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("apply ended before a %q event", typ)
			}
			if ev["type"] == typ {
				return
			}
		case <-timeout:
			t.Fatalf("no %q event within 60s", typ)
		}
	}
}

func drain(events <-chan map[string]any) {
	for range events {
	}
}

func TestInterruptLeavesNothingAfterDestroy(t *testing.T) {
	needNamespaces(t)
	cases := []struct {
		name    string
		when    string // event after which the signal is sent
		signals []syscall.Signal
		// wantLeft: objects may remain in state until destroy runs.
		wantExit bool
	}{
		{"sigint while provisioning", "create", []syscall.Signal{syscall.SIGINT}, true},
		{"sigint during a run", "run", []syscall.Signal{syscall.SIGINT}, true},
		{"sigterm during a run", "run", []syscall.Signal{syscall.SIGTERM}, true},
		{"sigint during teardown", "teardown", []syscall.Signal{syscall.SIGINT}, false},
		{"double sigint abandons teardown", "run", []syscall.Signal{syscall.SIGINT, syscall.SIGINT}, true},
		{"kill -9 during a run", "run", []syscall.Signal{syscall.SIGKILL}, true},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("e2e-sig%d", i)
			dir := labDir(t, id, fmt.Sprintf(smallLab, "3s"))
			cmd, events, stderr := startApply(t, dir)
			waitFor(t, events, tc.when)
			for _, s := range tc.signals {
				cmd.Process.Signal(s)
				time.Sleep(50 * time.Millisecond)
			}
			go drain(events)
			err := cmd.Wait()
			if tc.wantExit && err == nil {
				t.Errorf("apply exited 0 after %v", tc.signals)
			}
			t.Logf("apply: %v; stderr: %s", err, stderr.String())
			out, derr, err := lab(t, dir, "destroy", "-auto-approve")
			if err != nil {
				t.Fatalf("destroy: %v\n%s\n%s", err, out, derr)
			}
			if left := namespaces(t, id); len(left) > 0 {
				t.Errorf("namespaces left after destroy: %v", left)
			}
			if out, _, _ := lab(t, dir, "state", "list"); !strings.Contains(out, "no objects") {
				t.Errorf("state after destroy:\n%s", out)
			}
		})
	}
}

func TestSecondApplyNamesLockHolder(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-lock", fmt.Sprintf(smallLab, "2s"))
	cmd, events, _ := startApply(t, dir)
	waitFor(t, events, "run")
	_, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err == nil {
		t.Fatal("second apply succeeded while the first holds the lock")
	}
	if !strings.Contains(stderr, "apply") || !strings.Contains(stderr, fmt.Sprint(cmd.Process.Pid)) {
		t.Errorf("lock error does not name the holder (pid %d):\n%s", cmd.Process.Pid, stderr)
	}
	go drain(events)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("first apply: %v", err)
	}
}

func TestSavedPlanRefusesStaleState(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-plan", fmt.Sprintf(smallLab, "1s"))
	planFile := filepath.Join(t.TempDir(), "p.json")
	if out, stderr, err := lab(t, dir, "plan", "-out", planFile); err != nil {
		t.Fatalf("plan: %v\n%s%s", err, out, stderr)
	}
	// Change the state behind the plan's back: an apply with -keep.
	if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep"); err != nil {
		t.Fatalf("apply -keep: %v\n%s%s", err, out, stderr)
	}
	_, stderr, err := lab(t, dir, "apply", planFile)
	if err == nil || !strings.Contains(stderr, "stale") {
		t.Errorf("stale plan applied: %v\n%s", err, stderr)
	}
	// A fresh plan reuses the kept machines and then tears them down.
	out, stderr, err := lab(t, dir, "plan", "-out", planFile)
	if err != nil || !strings.Contains(out, "reused") {
		t.Errorf("plan after -keep does not reuse: %v\n%s%s", err, out, stderr)
	}
	if out, stderr, err := lab(t, dir, "apply", planFile); err != nil {
		t.Fatalf("apply saved plan: %v\n%s%s", err, out, stderr)
	}
	if left := namespaces(t, "e2e-plan"); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}
