package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// resumeLab has 2 cells x 2 repeats and a warm-up, 2 s runs: long enough
// to kill an apply half-way.
const resumeLab = `
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  repeat = 2
  warmup = 1
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "2s"
    omit     = "0s"
  }
}
`

// recordKeys are a run's records as experiment/pair/cell/repeat, sorted.
func recordKeys(recs []results.Record) []string {
	var keys []string
	for _, r := range recs {
		keys = append(keys, results.RecordPath(r))
	}
	slices.Sort(keys)
	return keys
}

// TestResumeAfterKill9ForReal: an apply killed with -9 after its first
// record, then `apply -resume`, makes one complete run with the records of
// a clean run; provenance says which apply wrote which, and nothing is
// left on the host.
func TestResumeAfterKill9ForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-resume", resumeLab)
	cmd := labCmd(dir, "apply", "-auto-approve")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m, _ := filepath.Glob(filepath.Join(dir, "results", "*", "*", "*", "*", "r*.json")); len(m) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	first, err := rs.Latest()
	if err != nil {
		t.Fatal(err)
	}
	_, partial, _ := rs.Load(first)
	if len(partial) == 0 || len(partial) >= 6 {
		t.Fatalf("the killed apply wrote %d records, want some but not all 6", len(partial))
	}

	out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-resume", "latest")
	if err != nil {
		t.Fatalf("apply -resume: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(out, "Selection: -resume "+first) {
		t.Errorf("the resumed plan does not show its selection:\n%s", out)
	}
	runs, err := rs.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after resume: %v, %v; want the one resumed", runs, err)
	}
	info, resumed, err := rs.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != results.StatusComplete {
		t.Errorf("resumed run is %s (%s), want complete", info.Status, info.Note)
	}
	applies := map[string]int{}
	for _, r := range resumed {
		if r.Error != "" {
			t.Errorf("%s: %s", results.RecordPath(r), r.Error)
		}
		applies[r.Provenance.Apply]++
	}
	if len(applies) != 2 || applies[first] == 0 {
		t.Errorf("records by apply: %v; want the first apply (%s) and the resuming one", applies, first)
	}

	out, stderr, err = lab(t, dir, "apply", "-auto-approve", "-resume", first)
	if err != nil || !strings.Contains(out, "nothing to resume") {
		t.Errorf("second resume of a complete run: %v\n%s%s", err, out, stderr)
	}

	if out, stderr, err := lab(t, dir, "apply", "-auto-approve"); err != nil {
		t.Fatalf("clean apply: %v\n%s%s", err, out, stderr)
	}
	clean, err := rs.Latest()
	if err != nil || clean == first {
		t.Fatalf("clean run: %v (%s)", err, clean)
	}
	_, cleanRecs, err := rs.Load(clean)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recordKeys(resumed), recordKeys(cleanRecs); !slices.Equal(got, want) {
		t.Errorf("resumed run's records:\n%v\nclean run's:\n%v", got, want)
	}
	if got, want := reportCells(t, dir, first), reportCells(t, dir, clean); got != want {
		t.Errorf("report cells differ:\nresumed:\n%s\nclean:\n%s", got, want)
	}
	if left := namespaces(t, "e2e-resume"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// reportCells is the cell columns of a run's CSV report.
func reportCells(t *testing.T, dir, run string) string {
	t.Helper()
	out, stderr, err := lab(t, dir, "report", "-format", "csv", run)
	if err != nil {
		t.Fatalf("report %s: %v\n%s", run, err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := strings.Split(lines[0], ",")
	var cells []string
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		var row []string
		for i, h := range header {
			if i < len(f) && (h == "experiment" || h == "pair" || h == "mtu" || h == "n" || h == "failed") {
				row = append(row, h+"="+f[i])
			}
		}
		cells = append(cells, strings.Join(row, " "))
	}
	return fmt.Sprint(cells)
}

// TestApplyOnlyThenResumeForReal: `apply -only mtu=9000` runs that cell
// only; `apply -resume` then fills in the rest of the same run.
func TestApplyOnlyThenResumeForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-only", strings.Replace(resumeLab, "  warmup = 1\n", "", 1))
	out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-only", "mtu=9000")
	if err != nil {
		t.Fatalf("apply -only: %v\n%s%s", err, out, stderr)
	}
	recs := loadRecords(t, dir)
	if got := recordKeys(recs); len(got) != 2 || !strings.Contains(got[0], "mtu=9000") || !strings.Contains(got[1], "mtu=9000") {
		t.Errorf("apply -only mtu=9000 wrote %v", got)
	}
	if out, stderr, err = lab(t, dir, "apply", "-auto-approve", "-resume", "latest"); err != nil {
		t.Fatalf("apply -resume: %v\n%s%s", err, out, stderr)
	}
	if !strings.Contains(out, "2 of 4 runs") {
		t.Errorf("the resume did not select the 2 missing runs:\n%s", out)
	}
	if got := recordKeys(loadRecords(t, dir)); len(got) != 4 {
		t.Errorf("after resume: %v, want 4 records", got)
	}
	if left := namespaces(t, "e2e-only"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}
