package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// hogLab is one namespace pair measuring TCP throughput briefly.
const hogLab = `
template "host" { os = "linux" }
pair "veth" { template = template.host }
experiment "tput" {
  pairs  = [pair.veth]
  repeat = 2
  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}
`

// startHogs starts one busy loop pinned on each of this machine's CPUs,
// so that whatever CPU the benchmark runs on, it shares it with a hog;
// they are killed (by their own pids) when the test ends.
func startHogs(t *testing.T) {
	t.Helper()
	for i := range runtime.NumCPU() {
		cmd := exec.Command("taskset", "-c", strconv.Itoa(i), "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start a CPU hog: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
}

// applyHog applies hogLab in dir, starting the hogs (startHogs) as soon
// as the first repeat's record is written, so that the second repeat runs
// under them: one apply, so one set-up, keeps the test short. It returns
// the run's records.
func applyHog(t *testing.T, dir string) []results.Record {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(labBin, "-chdir="+dir, "apply", "-auto-approve")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	for hogs := false; ; {
		select {
		case err = <-done:
		case <-time.After(50 * time.Millisecond):
			if !hogs {
				if first, _ := filepath.Glob(filepath.Join(dir, "results", "*", "tput", "veth", "*", "r1.json")); len(first) > 0 {
					startHogs(t)
					hogs = true
				}
			}
			continue
		}
		break
	}
	if err != nil && exitStatus(err) != exitExpect {
		t.Fatalf("apply: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	return recs
}

// TestCPUHogDirectionForReal is the controlled-neighbour measurement the
// noise guard's direction waits for (Metric.Disturbance): throughput on
// the local back end without and then with a CPU hog on every CPU (one
// apply of two repeats; the hogs start between them). It
// asserts only what it can — that the runner's CPU pressure is high
// under the hog — and prints which way
// throughput moved with the load averages, for the record: on a runner
// shared with other jobs the quiet side is not quiet, so one pass of this
// establishes no direction.
func TestCPUHogDirectionForReal(t *testing.T) {
	needNamespaces(t)
	if _, err := os.Stat(results.PressurePath); err != nil {
		t.Skipf("no %s (kernel without PSI): nothing to measure", results.PressurePath)
	}
	dir := labDir(t, "e2e-env-hog", hogLab)
	summary := func(recs []results.Record) (gbps, pressure, load float64) {
		for _, r := range recs {
			if r.Error != "" || r.Environment == nil || !r.Environment.CPUPressureKnown {
				t.Fatalf("%s #%d: error %q, environment %+v", r.CellKey, r.Repeat, r.Error, r.Environment)
			}
			gbps += r.Metrics.ThroughputBps / 1e9 / float64(len(recs))
			pressure += r.Environment.CPUPressure / float64(len(recs))
			load += (r.Environment.Load1Start + r.Environment.Load1End) / 2 / float64(len(recs))
		}
		return
	}
	recs := applyHog(t, dir)
	qGbps, qPSI, qLoad := summary(recs[:1])
	hGbps, hPSI, hLoad := summary(recs[1:])
	direction := "faster"
	if hGbps < qGbps {
		direction = "slower"
	}
	t.Logf("without a hog: %.2f Gb/s, CPU pressure %.1f%%, load %.1f", qGbps, qPSI, qLoad)
	t.Logf("with a hog on each of %d CPUs: %.2f Gb/s (%s, %+.1f%%), CPU pressure %.1f%%, load %.1f",
		runtime.NumCPU(), hGbps, direction, 100*(hGbps/qGbps-1), hPSI, hLoad)
	// Quiet, the hog raised pressure from 10 % to 61 % (load 2); on a
	// runner shared with other jobs both sides read 99–100 %. PSI must see
	// the hog unless the runner was saturated already.
	if hPSI <= qPSI && qPSI < 99 {
		t.Errorf("CPU pressure %.1f%% with a busy loop on every CPU against %.1f%% without: PSI should see the benchmark's tasks wait", hPSI, qPSI)
	}
}
