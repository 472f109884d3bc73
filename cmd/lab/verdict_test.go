package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// verdictLab is a lab whose results the tests write by hand: no traffic.
const verdictLab = `lab "verdicts" {}
template "host" { os = "linux" }
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "mtu" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000] }
  repeat = 3
  guest { mtu = matrix.mtu }
  iperf3 { duration = "1s" }
  expect "jumbo frames reach 10 Gb/s" {
    where      = { mtu = 9000 }
    throughput = { gbps = 10, tolerance = "5%" }
  }
  expect "no retransmits" {
    retransmits = { max = 0 }
  }
}
`

// cellRuns is one cell's runs: Gb/s per repeat (NaN-free; a negative
// value marks a failed run) and the retransmits of every run.
type cellRuns struct {
	mtu  string
	gbps []float64
	retr int64
}

// writeRun stores a complete run of the verdict lab started at minute
// min (ids sort by it) and returns its id.
func writeRun(t *testing.T, dir string, min int, status string, cells ...cellRuns) string {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	run, err := rs.NewRun(results.RunInfo{Lab: "verdicts", Started: time.Date(2026, 11, 30, 10, min, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		for i, v := range c.gbps {
			rec := results.Record{Experiment: "mtu", Pair: "veth", Repeat: i + 1,
				Cell: []results.CellValue{{Name: "mtu", Value: c.mtu}}, CellKey: "mtu=" + c.mtu,
				Metrics: bench.Sample{ThroughputBps: v * 1e9, Retransmits: c.retr}}
			if v < 0 {
				rec.Metrics, rec.Error = bench.Sample{}, "iperf3: connection refused"
			}
			if err := run.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if status != results.StatusRunning {
		if err := run.Finish(status); err != nil {
			t.Fatal(err)
		}
	}
	return run.ID()
}

func verdictDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(verdictLab), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runMain(dir string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := Main(append([]string{"-chdir=" + dir}, args...), strings.NewReader(""), &stdout, &stderr, nil)
	return code, stdout.String(), stderr.String()
}

func TestCheckVerdicts(t *testing.T) {
	tests := []struct {
		name   string
		status string
		cells  []cellRuns
		args   []string
		code   int
		want   []string
	}{
		{"whole CI below the band fails", results.StatusComplete,
			[]cellRuns{{"9000", []float64{4.2, 5.0, 5.8}, 0}, {"1500", []float64{4, 4, 4}, 0}}, nil, exitExpect,
			[]string{"entirely below [9.5, 10.5]", "1 pass, 1 fail"}},
		{"retransmits in every run fail max 0", results.StatusComplete,
			[]cellRuns{{"9000", []float64{9.9, 10, 10.1}, 34}, {"1500", []float64{4, 4, 4}, 40}}, nil, exitExpect,
			[]string{"every one of 3 runs exceeded", "1 pass, 1 fail"}},
		{"a failed run makes the cell incomplete; -strict exits 2", results.StatusComplete,
			[]cellRuns{{"9000", []float64{-1, 9.9, 10, 10.1}, 0}, {"1500", []float64{4, 4, 4}, 0}}, []string{"-strict"}, exitExpect,
			[]string{"incomplete", "1 of 4 runs failed", "0 fail, 0 inconclusive, 2 incomplete"}},
		{"incomplete without -strict exits 0", results.StatusComplete,
			[]cellRuns{{"9000", []float64{-1, 9.9, 10, 10.1}, 0}, {"1500", []float64{4, 4, 4}, 0}}, nil, exitOK,
			[]string{"incomplete"}},
		{"an interrupted run is refused", results.StatusInterrupted,
			[]cellRuns{{"9000", []float64{9.9, 10, 10.1}, 0}, {"1500", []float64{4, 4, 4}, 0}}, []string{"-strict"}, exitError, nil},
		{"an interrupted run with -partial is incomplete", results.StatusInterrupted,
			[]cellRuns{{"9000", []float64{9.9, 10, 10.1}, 0}, {"1500", []float64{4, 4, 4}, 0}}, []string{"-strict", "-partial"}, exitExpect,
			[]string{"ended interrupted", "0 pass, 0 fail, 0 inconclusive, 2 incomplete"}},
		{"everything passes", results.StatusComplete,
			[]cellRuns{{"9000", []float64{9.9, 10, 10.1}, 0}, {"1500", []float64{4, 4.1, 4}, 0}}, []string{"-strict", "latest"}, exitOK,
			[]string{"2 pass, 0 fail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := verdictDir(t)
			writeRun(t, dir, 1, tt.status, tt.cells...)
			code, out, errOut := runMain(dir, append([]string{"check"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestCompareCLI(t *testing.T) {
	dir := verdictDir(t)
	base := writeRun(t, dir, 1, results.StatusComplete,
		cellRuns{"1500", []float64{4, 4, 4}, 0}, cellRuns{"9000", []float64{10, 10.1, 9.9, 10}, 0})
	test := writeRun(t, dir, 2, results.StatusComplete,
		cellRuns{"1500", []float64{4, 4, 4}, 0}, cellRuns{"9000", []float64{8, 8.1, 7.9, 8}, 0})

	code, out, errOut := runMain(dir, "compare", "-fail-on", "regressed", "previous", "latest")
	if code != exitExpect || !strings.Contains(out, "regressed") || !strings.Contains(out, "p (Holm)") ||
		!strings.Contains(out, "base "+base+" → test "+test) || !strings.Contains(out, "no spread") {
		t.Errorf("compare -fail-on regressed: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runMain(dir, "compare", "previous", "latest"); code != exitOK {
		t.Errorf("compare without -fail-on: exit %d\n%s", code, out)
	}
	// Constant cells on both sides: the JSON has no Inf and parses.
	code, out, errOut = runMain(dir, "compare", "-json", "-threshold", "2%", base, test)
	var ds []verdicts.Delta
	if code != exitOK || json.Unmarshal([]byte(out), &ds) != nil || len(ds) != 2 || ds[0].Change != verdicts.NoChange {
		t.Errorf("compare -json: exit %d %v\n%s%s", code, ds, out, errOut)
	}
	// A threshold above the 20 % drop: not a regression.
	if code, out, _ := runMain(dir, "compare", "-threshold", "25%", "-fail-on", "regressed", base, test); code != exitOK {
		t.Errorf("compare -threshold 25%%: exit %d\n%s", code, out)
	}
	// The server CPU is constant (records of writeRun): no change, in a
	// column named for it.
	code, out, errOut = runMain(dir, "compare", "-metric", "server_cpu_pct", base, test)
	if code != exitOK || !strings.Contains(out, "base server CPU %") || !strings.Contains(out, "│ no change") {
		t.Errorf("compare -metric server_cpu_pct: exit %d\n%s%s", code, out, errOut)
	}
	// -adjust bh: Benjamini–Hochberg, named in the column and the footer.
	code, out, errOut = runMain(dir, "compare", "-adjust", "bh", "-fail-on", "regressed", base, test)
	if code != exitExpect || !strings.Contains(out, "p (BH)") || !strings.Contains(out, "Benjamini–Hochberg") {
		t.Errorf("compare -adjust bh: exit %d\n%s%s", code, out, errOut)
	}
	for _, bad := range [][]string{{"-threshold", "150%"}, {"-threshold", "x"}, {"-fail-on", "worse"}, {"-metric", "speed"}, {"-adjust", "bonferroni"}} {
		if code, _, errOut := runMain(dir, append(append([]string{"compare"}, bad...), base, test)...); code != exitError {
			t.Errorf("compare %v: exit %d, %s", bad, code, errOut)
		}
	}
}

func TestCheckJUnit(t *testing.T) {
	dir := verdictDir(t)
	writeRun(t, dir, 1, results.StatusComplete,
		cellRuns{"9000", []float64{4.2, 5.0, 5.8}, 0}, cellRuns{"1500", []float64{-1, 4, 4.1, 4}, 0})
	file := filepath.Join(t.TempDir(), "check.xml")
	code, out, errOut := runMain(dir, "check", "-junit", file)
	if code != exitExpect {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int  `xml:"tests,attr"`
		Failures int  `xml:"failures,attr"`
		Errors   *int `xml:"errors,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	err = xml.Unmarshal(data, &suites)
	skipped := 0 // junit-10.xsd declares skipped on <testsuite> only
	for _, s := range suites.Suites {
		skipped += s.Skipped
	}
	if err != nil || suites.Tests != 3 || suites.Failures != 1 || skipped != 1 || suites.Errors == nil || *suites.Errors != 0 {
		t.Errorf("%+v %v\n%s", suites, err, data)
	}
	if code, _, errOut := runMain(dir, "check", "-junit", filepath.Join(dir, "no", "such", "dir.xml")); code != exitError {
		t.Errorf("unwritable -junit: exit %d %s", code, errOut)
	}
}

// Three applies that each look tight but disagree with each other: alone,
// each one passes; checked together (one observation per apply) the
// apply-to-apply spread makes the verdict inconclusive, not a pass.
func TestCheckPoolsApplies(t *testing.T) {
	dir := verdictDir(t)
	var ids []string
	for i, m := range []float64{9.6, 10.4, 10.0} {
		ids = append(ids, writeRun(t, dir, i+1, results.StatusComplete,
			cellRuns{"9000", []float64{m - 0.01, m, m + 0.01}, 0}, cellRuns{"1500", []float64{4, 4, 4}, 0}))
	}
	for _, id := range ids {
		if code, out, errOut := runMain(dir, "check", id); code != exitOK || !strings.Contains(out, "2 pass") {
			t.Fatalf("run %s alone: exit %d\n%s%s", id, code, out, errOut)
		}
	}
	code, out, errOut := runMain(dir, append([]string{"check", "-strict"}, ids...)...)
	if code != exitExpect || !strings.Contains(out, "inconclusive") || !strings.Contains(out, strings.Join(ids, "+")) {
		t.Errorf("pooled check: exit %d\n%s%s", code, out, errOut)
	}
}
