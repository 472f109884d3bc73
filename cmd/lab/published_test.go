package main

import (
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

// publishedLab is a lab whose results the test writes by hand, with three
// tables of seed 000's shape: two of the home lab's i3-6100U (the runs'
// CPU) and one of a data centre's Xeon (not the runs' hardware).
const publishedLab = `lab "published" {}
template "host" { os = "freebsd" }
pair "fbsd" { template = template.host }
experiment "lro" {
  pairs  = [pair.fbsd]
  matrix = { lro = [false, true], mtu = [1500, 9000] }
  repeat = 3
  guest {
    lro = matrix.lro
    mtu = matrix.mtu
  }
  iperf3 { duration = "1s" }
}
published "home" {
  source     = "seed 000, home-lab table"
  hardware   = "Intel Core i3-6100U, ESXi, 1 vCPU"
  match      = { cpu = "i3-6100U" }
  tool       = "iperf3"
  side       = "receiver"
  experiment = experiment.lro
  cells = [
    { where = { lro = false, mtu = 1500 }, value = 2.4 },  # measured 2.38-2.42: reproduced
    { where = { lro = true, mtu = 9000 }, value = 13.4 },  # measured 13.3-13.5: reproduced
    { where = { lro = false, mtu = 9000 }, value = 2.7 },  # measured 2.0-3.5: inconclusive
    { where = { lro = true, mtu = 1500 }, value = 8.6 },   # measured 5.9-6.1: not reproduced
  ]
}
published "dc" {
  source     = "seed 000, data-centre table"
  hardware   = "Intel Xeon, vSphere 8"
  match      = { cpu = "Xeon" }
  side       = "sender"
  experiment = experiment.lro
  cells = [
    { where = { lro = false, mtu = 1500 }, value = 3.06 },
    { where = { lro = true, mtu = 1500 }, value = 7.65 },
  ]
}
`

// publishedExpects are the expect blocks a case adds to publishedLab.
var publishedExpects = map[string]string{
	"reproduced": `expect "home, reproduced cells" {
  published = published.home
  where     = { mtu = 9000, lro = true }
}
expect "home, first cell" {
  published = published.home
  where     = { mtu = 1500, lro = false }
}`,
	"not comparable": `expect "data centre" {
  published = published.dc
}`,
	"ratio": `expect "LRO helps as in the data centre" {
  ratio = { of = "lro=true", over = "lro=false", published = published.dc }
}`,
	"inconclusive": `expect "home, noisy cell" {
  published = published.home
  where     = { mtu = 9000, lro = false }
}`,
	"not reproduced": `expect "home, LRO" {
  published = published.home
  where     = { mtu = 1500, lro = true }
  margin    = "15%"
}`,
}

// writePublishedRun stores one complete run of publishedLab: three runs
// per cell on an i3-6100U, the sender's figure 2 % above the receiver's.
func writePublishedRun(t *testing.T, dir string) {
	t.Helper()
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	run, err := rs.NewRun(results.RunInfo{Lab: "published", Started: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	cells := []struct {
		lro, mtu string
		gbps     []float64
	}{
		{"false", "1500", []float64{2.38, 2.40, 2.42}},
		{"true", "1500", []float64{6.0, 6.1, 5.9}},
		{"false", "9000", []float64{2.0, 3.5, 2.6}},
		{"true", "9000", []float64{13.3, 13.4, 13.5}},
	}
	const cpu = "Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz"
	for _, c := range cells {
		for i, v := range c.gbps {
			rec := results.Record{Lab: "published", Experiment: "lro", Pair: "fbsd", Repeat: i + 1,
				Cell:    []results.CellValue{{Name: "lro", Value: c.lro}, {Name: "mtu", Value: c.mtu}},
				CellKey: "lro=" + c.lro + ",mtu=" + c.mtu,
				Metrics: bench.Sample{ThroughputBps: v * 1e9, SenderBps: v * 1.02e9},
				Provenance: results.Provenance{Provider: "local", ServerCPUModel: cpu, ClientCPUModel: cpu,
					ServerKernel: "FreeBSD 14.2-RELEASE", ClientKernel: "FreeBSD 14.2-RELEASE"}}
			if err := run.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := run.Finish(results.StatusComplete); err != nil {
		t.Fatal(err)
	}
}

func TestCheckPublished(t *testing.T) {
	tests := []struct {
		name    string
		expects []string
		args    []string
		code    int
		want    []string
	}{
		{"reproduced and not comparable pass, even -strict", []string{"reproduced", "not comparable"}, []string{"-strict"}, exitOK,
			[]string{"reproduced", "90% CI", "13.4 Gb/s ± 10% (receiver)", "not comparable",
				`cpu "Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz" does not contain the post's "Xeon"`, "3.06 Gb/s ± 10% (sender)",
				"2 reproduced, 1 not comparable"}},
		{"a ratio travels where the cells do not", []string{"ratio"}, []string{"-strict"}, exitOK,
			[]string{"2.5 ± 15% (published lro=true / lro=false)", "pass", "1 pass, 0 fail"}},
		{"inconclusive exits 0", []string{"inconclusive"}, nil, exitOK,
			[]string{"inconclusive", "2.7 Gb/s ± 10% (receiver)", "0 pass, 0 fail, 1 inconclusive"}},
		{"inconclusive with -strict exits 2", []string{"inconclusive"}, []string{"-strict"}, exitExpect, []string{"inconclusive"}},
		{"not reproduced exits 2", []string{"reproduced", "not reproduced"}, nil, exitExpect,
			[]string{"entirely below published ± margin [7.31, 9.89]", "1 not reproduced"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := publishedLab
			for _, e := range tt.expects {
				spec += publishedExpects[e] + "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(spec), 0o644); err != nil {
				t.Fatal(err)
			}
			writePublishedRun(t, dir)
			code, out, errOut := runMain(dir, append([]string{"check"}, tt.args...)...)
			t.Log(out)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestCheckPublishedJSONAndJUnit: -json carries each published cell's
// table, published value, margin and verdict; -junit fails a cell not
// reproduced and skips one not comparable.
func TestCheckPublishedJSONAndJUnit(t *testing.T) {
	dir := t.TempDir()
	spec := publishedLab + publishedExpects["not reproduced"] + "\n" + publishedExpects["not comparable"] + "\n"
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	writePublishedRun(t, dir)
	junit := filepath.Join(dir, "junit.xml")
	code, out, errOut := runMain(dir, "check", "-json", "-junit", junit)
	if code != exitExpect {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitExpect, out, errOut)
	}
	var doc struct {
		Outcomes []struct {
			Name    string           `json:"name"`
			Verdict verdicts.Verdict `json:"verdict"`
			Checks  []verdicts.Check `json:"checks"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(doc.Outcomes) != 2 {
		t.Fatalf("want 2 outcomes, got %+v", doc.Outcomes)
	}
	lro := doc.Outcomes[0].Checks[0]
	if doc.Outcomes[0].Verdict != verdicts.VerdictNotReproduced || lro.Table != "home" || lro.Published != 8.6 ||
		lro.Margin != 0.15 || lro.Metric != results.MetricThroughput || lro.Value < 5.9 || lro.Value > 6.1 {
		t.Errorf("not reproduced check: %+v", lro)
	}
	dc := doc.Outcomes[1]
	if dc.Verdict != verdicts.VerdictNotComparable || len(dc.Checks) != 2 || dc.Checks[0].Metric != results.MetricSenderThroughput ||
		dc.Checks[0].Value < 2.44 || dc.Checks[0].Value > 2.45 {
		t.Errorf("not comparable outcome (sender side, 2.40 × 1.02): %+v", dc)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Skipped int `xml:"skipped,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil {
		t.Fatal(err)
	}
	skipped := 0 // junit-10.xsd declares skipped on <testsuite> only
	for _, s := range suites.Suites {
		skipped += s.Skipped
	}
	if suites.Failures != 1 || skipped != 2 {
		t.Errorf("junit: %d failures, %d skipped, want 1 and 2:\n%s", suites.Failures, skipped, b)
	}
}
