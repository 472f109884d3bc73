package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// Faults that used to lose data or leave things behind (issue 9,
// section 4), injected for real on the local back end.

// TestMissingToolForReal: without iperf3 the apply stops before the first
// run with one error naming the guest and the package, and leaves nothing.
func TestMissingToolForReal(t *testing.T) {
	needNamespaces(t)
	bin := t.TempDir()
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() == "iperf3" {
				continue
			}
			_ = os.Symlink(filepath.Join(d, e.Name()), filepath.Join(bin, e.Name())) // first one wins
		}
	}
	dir := labDir(t, "e2e-notool", twin("veth"))
	cmd := labCmd(dir, "apply", "-auto-approve")
	cmd.Env = append(os.Environ(), "PATH="+bin)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pair.veth.server: not installed: iperf3 (Debian/Ubuntu: apt-get install iperf3)") {
		t.Errorf("apply without iperf3: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "runs (") && !strings.Contains(string(out), "0 runs") {
		t.Errorf("runs were attempted without the tool:\n%s", out)
	}
	if left := namespaces(t, "e2e-notool"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// TestStrictSettingFailsOnlyItsCellForReal: LRO cannot be turned on on a
// veth; that cell's run fails with the reason recorded, the other cell is
// measured, and the apply says how many failed.
func TestStrictSettingFailsOnlyItsCellForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-lro", `
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "lro" {
  pairs  = [pair.veth]
  matrix = { lro = [false, true] }
  guest { lro = matrix.lro }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`)
	out, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err == nil || !strings.Contains(out, "2 runs (1 failed)") {
		t.Fatalf("apply: %v\n%s%s", err, out, stderr)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		switch r.CellKey {
		case "lro=false":
			if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
				t.Errorf("lro=false was not measured: %q %v", r.Error, r.Metrics.ThroughputBps)
			}
		case "lro=true":
			if !strings.Contains(r.Error, "settings did not take effect") || !strings.Contains(r.Error, "lro") {
				t.Errorf("lro=true: error %q should say the setting did not take effect", r.Error)
			}
		}
	}
}

// TestKilledApplyIsInterruptedForReal: kill -9 mid-run leaves run.json
// "running"; report shows the run as interrupted, check refuses it unless
// -partial, and destroy removes the machines.
func TestKilledApplyIsInterruptedForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-kill9", strings.Replace(twin("veth"), `duration = "1s"`, `duration = "2s"`, 1)+`
experiment "more" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 { duration = "2s" }
  expect "anything" {
    where = { mtu = 1500 }
    throughput = { gbps = 1, tolerance = "99%" }
  }
}
`)
	cmd := labCmd(dir, "apply", "-auto-approve")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "results", "*", "*", "*", "*", "r*.json")); len(m) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	out, _, err := lab(t, dir, "report")
	if err != nil || !strings.Contains(out, "interrupted (the process that ran it (pid ") {
		t.Errorf("report of a killed run: %v\n%s", err, out)
	}
	_, stderr, err := lab(t, dir, "check")
	if err == nil || !strings.Contains(stderr, "is interrupted") || !strings.Contains(stderr, "-partial") {
		t.Errorf("check of a killed run: %v\n%s", err, stderr)
	}
	if out, stderr, err := lab(t, dir, "check", "-partial"); strings.Contains(stderr, "is interrupted") {
		t.Errorf("check -partial: %v\n%s%s", err, out, stderr)
	}
	if out, stderr, err := lab(t, dir, "destroy", "-auto-approve"); err != nil {
		t.Errorf("destroy: %v\n%s%s", err, out, stderr)
	}
	if left := namespaces(t, "e2e-kill9"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// loadRecords reads the latest run's records of the lab in dir.
func loadRecords(t *testing.T, dir string) []results.Record {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, err := rs.Latest()
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestReuseAfterKeepForReal: a second apply after -keep reuses the link
// and machines as the plan says — no new veth pair, nothing stray in the
// host namespace.
func TestReuseAfterKeepForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-reuse", twin("veth"))
	for i := 0; i < 2; i++ {
		if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep"); err != nil {
			t.Fatalf("apply -keep #%d: %v\n%s%s", i+1, err, out, stderr)
		}
	}
	out, err := exec.Command("ip", "-j", "link", "show", "type", "veth").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "lab=e2e-reuse ") {
		t.Errorf("a veth of the lab is left in the host namespace after reuse:\n%s", out)
	}
	if n := len(namespaces(t, "e2e-reuse")); n != 2 {
		t.Errorf("%d namespaces, want the 2 reused ones", n)
	}
	if out, stderr, err := lab(t, dir, "destroy", "-auto-approve"); err != nil {
		t.Errorf("destroy: %v\n%s%s", err, out, stderr)
	}
}
