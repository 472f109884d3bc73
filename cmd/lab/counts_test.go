package main

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// rawRun is one run of the verdict lab's mtu=1500 (or mtu) cell per
// element of retr (retransmits), at gbps, with the repeats planned (0: none
// recorded) and the runs whose index is in disturbed marked so.
type rawRun struct {
	retr      []int64
	gbps      float64
	spread    float64 // relative step between repeats (0: 0.1 %)
	mtu       string  // "" for 1500
	planned   int
	disturbed []int
}

func writeRawRun(t *testing.T, dir string, min int, r rawRun) string {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	info := results.RunInfo{Lab: "verdicts", Started: time.Date(2026, 11, 30, 11, min, 0, 0, time.UTC), Experiments: []string{"mtu"}}
	if r.planned > 0 {
		info.Planned = []results.PlannedCell{{Experiment: "mtu", Pair: "veth", CellKey: "mtu=1500", Repeats: r.planned}}
	}
	run, err := rs.NewRun(info)
	if err != nil {
		t.Fatal(err)
	}
	mtu, spread := cmp.Or(r.mtu, "1500"), cmp.Or(r.spread, 0.001)
	for i, n := range r.retr {
		rec := results.Record{Experiment: "mtu", Pair: "veth", Repeat: i + 1,
			Cell: []results.CellValue{{Name: "mtu", Value: mtu}}, CellKey: "mtu=" + mtu,
			Metrics: bench.Sample{ThroughputBps: r.gbps * 1e9 * (1 + spread*float64(i)), Retransmits: n}}
		for _, d := range r.disturbed {
			if d == i {
				rec.Disturbed = "CPU steal 40.0% on the server"
			}
		}
		if err := run.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
	return run.ID()
}

// The issue 23 §1 examples through the CLI: `max = 0` fails on 5/0/0 and
// on three pooled applies of 1/0/0; a disturbed run and a lost last
// repeat are named; values that overflow still encode as JSON.
func TestCheckCountsDisturbedMissingOverflow(t *testing.T) {
	dir := verdictDir(t)
	one := writeRawRun(t, dir, 1, rawRun{retr: []int64{5, 0, 0}, gbps: 4})
	code, out, errOut := runMain(dir, "check", one)
	if code != exitExpect || !strings.Contains(out, "1 of 3 runs counted retransmits") {
		t.Errorf("5/0/0: exit %d\n%s%s", code, out, errOut)
	}
	var ids []string
	for i := range 3 {
		ids = append(ids, writeRawRun(t, dir, 10+i, rawRun{retr: []int64{1, 0, 0}, gbps: 4}))
	}
	code, out, errOut = runMain(dir, append([]string{"check"}, ids...)...)
	if code != exitExpect || !strings.Contains(out, "3 of 9 runs counted retransmits") {
		t.Errorf("pooled 1/0/0 ×3: exit %d\n%s%s", code, out, errOut)
	}
	// The one retransmit is the disturbed run's: without it the cell passes, so
	// the fail does not stand.
	stolen := writeRawRun(t, dir, 20, rawRun{retr: []int64{1, 0, 0}, gbps: 4, disturbed: []int{0}})
	code, out, errOut = runMain(dir, "check", "-json", stolen)
	if code != exitOK || !strings.Contains(out, `"disturbed":1`) || !strings.Contains(out, "1 of 3 runs disturbed") {
		t.Errorf("disturbed: exit %d\n%s%s", code, out, errOut)
	}
	lost := writeRawRun(t, dir, 30, rawRun{retr: []int64{0, 0}, gbps: 4, planned: 3})
	code, out, errOut = runMain(dir, "check", lost)
	if !strings.Contains(out, "1 of 3 runs missing") || !strings.Contains(out, "incomplete") {
		t.Errorf("lost last repeat: exit %d\n%s%s", code, out, errOut)
	}
	// 0.9, 1.215 and 1.53 × 1e308 b/s: the 95 % interval's upper end
	// overflows float64.
	huge := writeRawRun(t, dir, 40, rawRun{retr: []int64{0, 0, 0}, gbps: 0.9e299, spread: 0.35, mtu: "9000"})
	code, out, errOut = runMain(dir, "check", "-json", huge)
	if code != exitOK || !json.Valid([]byte(out)) || strings.Contains(out, "Inf") {
		t.Errorf("check -json of values that overflow: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runMain(dir, "check", huge)
	if code != exitOK || !strings.Contains(out, "overflow") || strings.Contains(out, "Inf") {
		t.Errorf("check of values that overflow: exit %d\n%s%s", code, out, errOut)
	}
	base := writeRawRun(t, dir, 41, rawRun{retr: []int64{0, 0, 0}, gbps: 10, mtu: "9000"})
	code, out, errOut = runMain(dir, "compare", base, huge)
	if !strings.Contains(out, "overflow") || strings.Contains(out, "Inf") {
		t.Errorf("compare of values that overflow: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runMain(dir, "compare", "-json", base, huge)
	if !json.Valid([]byte(out)) || !strings.Contains(out, "overflow") {
		t.Errorf("compare -json of values that overflow: exit %d\n%s%s", code, out, errOut)
	}
}
