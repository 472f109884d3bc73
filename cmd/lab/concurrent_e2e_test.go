package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// concurrentLab is two pairs of namespaces whose iperf3 flows run at the
// same moment in every cell (seed 001's c1 -> s1 and c2 -> s2).
const concurrentLab = `
lab "e2e-concurrent" {}
template "host" { os = "linux" }
pair "c1" { template = template.host }
pair "c2" { template = template.host }
experiment "flows" {
  pairs      = [pair.c1, pair.c2]
  concurrent = true
  repeat     = 2
  matrix     = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 { duration = "2s" }
}
`

// TestConcurrentFlowsForReal applies two pairs with concurrent = true on
// the local back end: every cell and repeat has one record per pair, the
// two clients' [start, end] intervals overlap, the start skew is recorded
// and under its bound, plan -json lists the flows, and lab report shows
// the aggregate. Everything made is gone afterwards.
func TestConcurrentFlowsForReal(t *testing.T) {
	needNamespaces(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(concurrentLab), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sweep(t, "e2e-concurrent") })

	out, errOut, err := lab(t, dir, "plan", "-json")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, errOut)
	}
	var p struct {
		Groups []struct {
			Runs []struct {
				Pair  string   `json:"pair"`
				Flows []string `json:"flows"`
			} `json:"runs"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan -json: %v\n%s", err, out)
	}
	for _, g := range p.Groups {
		for _, r := range g.Runs {
			if strings.Join(r.Flows, ",") != "c1,c2" {
				t.Errorf("plan -json: run of %s lists flows %v, want [c1 c2]", r.Pair, r.Flows)
			}
		}
	}

	if out, errOut, err := lab(t, dir, "apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, out, errOut)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*2*2 {
		t.Fatalf("%d records, want 8 (2 cells x 2 repeats x 2 flows)", len(recs))
	}
	byRun := map[string][]results.Record{}
	for _, r := range recs {
		if r.Error != "" {
			t.Fatalf("%s %s #%d: %s", r.Pair, r.CellKey, r.Repeat, r.Error)
		}
		k := fmt.Sprintf("%s#%d", r.CellKey, r.Repeat)
		byRun[k] = append(byRun[k], r)
	}
	for k, rs := range byRun {
		if len(rs) != 2 || rs[0].Pair == rs[1].Pair {
			t.Errorf("%s: %d records, want one of each pair", k, len(rs))
			continue
		}
		a, b := rs[0], rs[1]
		if !a.Raw.Start.Before(b.Raw.End) || !b.Raw.Start.Before(a.Raw.End) {
			t.Errorf("%s: the clients did not overlap: [%v, %v] and [%v, %v]", k, a.Raw.Start, a.Raw.End, b.Raw.Start, b.Raw.End)
		}
		for _, r := range rs {
			f := r.Flow
			if f == nil || strings.Join(f.Pairs, ",") != "c1,c2" || !f.ClientStart.Equal(r.Raw.Start) {
				t.Fatalf("%s %s: flow %+v", k, r.Pair, f)
			}
			if f.SkewBoundMs != 100 || f.SkewMs < 0 || f.SkewMs > f.SkewBoundMs {
				t.Errorf("%s %s: skew %.1f ms, bound %.0f ms", k, r.Pair, f.SkewMs, f.SkewBoundMs)
			}
			if want := results.Skew([]time.Time{a.Raw.Start, b.Raw.Start}); time.Duration(f.SkewMs*float64(time.Millisecond)).Round(time.Microsecond) != want.Round(time.Microsecond) {
				t.Errorf("%s %s: skew %.3f ms recorded, the starts are %v apart", k, r.Pair, f.SkewMs, want)
			}
			t.Logf("%s %s: %.2f Gb/s, skew %.2f ms", k, r.Pair, r.Metrics.ThroughputBps/1e9, f.SkewMs)
		}
	}

	out, errOut, err = lab(t, dir, "report")
	if err != nil {
		t.Fatalf("report: %v\n%s", err, errOut)
	}
	for _, want := range []string{"concurrent flows, summed per repeat", "flows mtu=1500: c1 + c2 = ", "flows mtu=9000: c1 + c2 = ", "(n 2)", "(bound 100 ms)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	t.Logf("report:\n%s", out)
	if left := namespaces(t, "e2e-concurrent"); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}
