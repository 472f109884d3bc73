package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/results"
)

// runJSON is what `lab show -json RUN` prints (show's view writes it).
type runJSON = view.RunJSON

// TestShow shows a saved plan and a run, for people and as JSON.
func TestShow(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(onlyLab), 0o644); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "saved.plan")
	if code, out, errOut := runLab(t, "", "-chdir="+dir, "plan", "-only", "pair=a", "-out", planFile); code != 0 {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	run := writeOnlyRun(t, dir)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"plan", []string{"show", planFile}, []string{"Selection: -only pair=a: 4 of 8 runs.", "Plan: 3 to add"}},
		{"plan json", []string{"show", "-json", planFile}, []string{`"selection": "-only pair=a"`, `"all_runs": 8`}},
		{"latest run", []string{"show"}, []string{"Run " + run.ID() + ` of lab "only": complete`, "records   2 (0 failed)",
			"applies   20261130T100000Z: 1, 20261130T110000Z: 1 (resumed)", "mtu"}},
		{"run by id", []string{"show", run.ID()}, []string{"Run " + run.ID()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runLab(t, "", append([]string{"-chdir=" + dir}, tc.args...)...)
			if code != 0 {
				t.Errorf("exit %d\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	code, out, _ := runLab(t, "", "-chdir="+dir, "show", "-json", "latest")
	var got runJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Run.ID != run.ID() || len(got.Records) != 2 {
		t.Errorf("show -json latest: exit %d, %v: %+v", code, err, got.Run)
	}
	if code, _, errOut := runLab(t, "", "-chdir="+dir, "show", "nope"); code != 1 || !strings.Contains(errOut, "nope") {
		t.Errorf("show nope: exit %d\n%s", code, errOut)
	}
}

// writeOnlyRun writes a complete run of onlyLab with two records of one cell,
// the second from a resuming apply.
func writeOnlyRun(t *testing.T, dir string) *results.Run {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	run, err := rs.NewRun(results.RunInfo{Lab: "only", Started: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), Experiments: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, apply := range []string{run.ID(), "20261130T110000Z"} {
		rec := results.Record{Lab: "only", Experiment: "e", Pair: "a", Cell: []results.CellValue{{Name: "mtu", Value: "1500"}},
			CellKey: "mtu=1500", Repeat: i + 1, Metrics: bench.Sample{ThroughputBps: 9e9 + float64(i)*1e8}}
		rec.Provenance.Apply = apply
		if err := run.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestShowCommands: `lab show RUN` prints the command lines lab ran on
// each end (kept in each record beside the tool's output) once per
// experiment and pair; records without them (written before) show none.
func TestShowCommands(t *testing.T) {
	dir := t.TempDir()
	old := writeOnlyRun(t, dir)
	if code, out, errOut := runLab(t, "", "-chdir="+dir, "show", old.ID()); code != 0 || strings.Contains(out, "commands") {
		t.Errorf("old records: exit %d\n%s%s", code, out, errOut)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	run, err := rs.NewRun(results.RunInfo{Lab: "only", Started: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Experiments: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rec := results.Record{Lab: "only", Experiment: "e", Pair: "a", CellKey: "mtu=1500", Repeat: i + 1,
			Metrics: bench.Sample{ThroughputBps: 9e9},
			Raw: bench.Raw{Client: "{}", ServerArgv: []string{"taskset", "-c", "0", "iperf3", "-s", "-1", "-p", "5201"},
				ClientArgv: []string{"iperf3", "-c", "198.18.0.1", "-p", "5201", "--title", "it's \x1b[2J"}}}
		if err := run.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runLab(t, "", "-chdir="+dir, "show", "latest")
	want := []string{"  commands  (the first measured record", "    e / a (mtu=1500, repeat 1):",
		"      server  taskset -c 0 iperf3 -s -1 -p 5201\n",
		`      client  iperf3 -c 198.18.0.1 -p 5201 --title 'it'\''s \x1b[2J'` + "\n"}
	for _, w := range want {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("exit %d, output lacks %q:\n%s%s", code, w, out, errOut)
		}
	}
	if strings.Count(out, "server  ") != 1 || strings.Contains(out, "\x1b") {
		t.Errorf("commands shown more than once, or a raw ESC:\n%q", out)
	}
}
