package verdicts

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// pubRecs makes one record per value (Gb/s) for the cell lro × mtu of pair
// p, with the sender's figure 2 % above the receiver's and the provenance
// of an i3-6100U on vSphere.
func pubRecs(p, lro, mtu, cpu string, gbps ...float64) []results.Record {
	var recs []results.Record
	for i, v := range gbps {
		recs = append(recs, results.Record{Experiment: "x", Pair: p, Repeat: i + 1,
			Cell:    []results.CellValue{{Name: "lro", Value: lro}, {Name: "mtu", Value: mtu}},
			CellKey: "lro=" + lro + ",mtu=" + mtu,
			Metrics: bench.Sample{ThroughputBps: v * 1e9, SenderBps: v * 1.02e9},
			Provenance: results.Provenance{Provider: "vsphere", ServerCPUModel: cpu, ClientCPUModel: cpu,
				ServerKernel: "FreeBSD 14.2-RELEASE", ClientKernel: "FreeBSD 14.2-RELEASE"}})
	}
	return recs
}

const i3 = "Intel(R) Core(TM) i3-6100U CPU @ 2.30GHz"

func homeTable(side string, match map[string]string, cells ...PublishedCell) *PublishedTable {
	metric := results.MetricThroughput
	if side == "sender" {
		metric = results.MetricSenderThroughput
	}
	return &PublishedTable{Name: "home", Source: "seed 000", Hardware: "i3-6100U", Side: side, Metric: metric,
		Match: match, Cells: cells}
}

func pc(lro, mtu string, v float64) PublishedCell {
	return PublishedCell{Where: map[string]string{"pair": "fbsd", "lro": lro, "mtu": mtu}, Value: v}
}

func TestPublishedVerdicts(t *testing.T) {
	var recs []results.Record
	recs = append(recs, pubRecs("fbsd", "false", "1500", i3, 2.38, 2.40, 2.42, 2.39, 2.41)...) // as published (2.4)
	recs = append(recs, pubRecs("fbsd", "true", "1500", i3, 6.0, 6.1, 5.9, 6.0, 6.05)...)      // far below 8.6
	recs = append(recs, pubRecs("fbsd", "false", "9000", i3, 2.0, 3.5, 2.2, 3.2, 2.6)...)      // noisy: straddles
	recs = append(recs, pubRecs("fbsd", "true", "9000", "AMD EPYC 7302", 13.3, 13.4, 13.5)...)
	recs = append(recs, pubRecs("deb", "true", "9000", i3, 17.5)...)
	failed := pubRecs("fbsd", "true", "9000", i3, 13.4)[0]
	failed.Pair, failed.Repeat, failed.Error, failed.Metrics = "inc", 2, "iperf3: connection refused", bench.Sample{}
	recs = append(recs, failed)
	inc := pubRecs("inc", "true", "9000", i3, 13.3)[0]
	recs = append(recs, inc)
	groups := results.Group(recs)
	match := map[string]string{"provider": "vsphere", "cpu": "i3-6100U", "os": "freebsd"}

	tests := []struct {
		name    string
		table   *PublishedTable
		where   map[string]string
		margin  float64
		want    []Verdict
		outcome Verdict
		reason  string // in the first check's reason
	}{
		{"reproduced (receiver side)", homeTable("receiver", match, pc("false", "1500", 2.4)), nil, 0.10,
			[]Verdict{VerdictReproduced}, VerdictReproduced, "90% CI"},
		// The sender's figure is 2 % above: 2.45 is reproduced on the
		// sender side and the receiver's 2.40 is not inside 2.45 ± 1 %.
		{"sender side reads sender_throughput_bps", homeTable("sender", match, pc("false", "1500", 2.45)), nil, 0.01,
			[]Verdict{VerdictReproduced}, VerdictReproduced, "inside"},
		{"receiver side at the sender's figure", homeTable("receiver", match, pc("false", "1500", 2.45)), nil, 0.01,
			[]Verdict{VerdictNotReproduced}, VerdictNotReproduced, "below"},
		{"not reproduced", homeTable("receiver", match, pc("true", "1500", 8.6)), nil, 0.10,
			[]Verdict{VerdictNotReproduced}, VerdictNotReproduced, "entirely below"},
		{"inconclusive: CI wider than the band", homeTable("receiver", match, pc("false", "9000", 2.7)), nil, 0.10,
			[]Verdict{VerdictInconclusive}, VerdictInconclusive, "wider"},
		{"not comparable: another CPU", homeTable("receiver", match, pc("true", "9000", 13.4)), nil, 0.10,
			[]Verdict{VerdictNotComparable}, VerdictNotComparable, `"AMD EPYC 7302" does not contain the post's "i3-6100U"`},
		{"not comparable: no match given", homeTable("receiver", nil, pc("false", "1500", 2.4)), nil, 0.10,
			[]Verdict{VerdictNotComparable}, VerdictNotComparable, "no match"},
		{"not comparable: another provider", homeTable("receiver", map[string]string{"provider": "libvirt"}, pc("false", "1500", 2.4)), nil, 0.10,
			[]Verdict{VerdictNotComparable}, VerdictNotComparable, `provider "vsphere"`},
		{"one run: inconclusive", homeTable("receiver", match,
			PublishedCell{Where: map[string]string{"pair": "deb", "lro": "true", "mtu": "9000"}, Value: 17.5}), nil, 0.10,
			[]Verdict{VerdictInconclusive}, VerdictInconclusive, "1 run"},
		{"failed runs: incomplete", homeTable("receiver", match,
			PublishedCell{Where: map[string]string{"pair": "inc", "lro": "true", "mtu": "9000"}, Value: 13.3}), nil, 0.10,
			[]Verdict{VerdictIncomplete}, VerdictIncomplete, "runs failed"},
		{"cell not run", homeTable("receiver", match, pc("true", "4000", 1)), nil, 0.10,
			[]Verdict{VerdictInconclusive}, VerdictInconclusive, "no run of this cell"},
		{"where keeps the table's cells it allows; worst verdict wins",
			homeTable("receiver", match, pc("false", "1500", 2.4), pc("true", "1500", 8.6), pc("true", "9000", 13.4),
				PublishedCell{Where: map[string]string{"pair": "deb", "lro": "true", "mtu": "9000"}, Value: 17.5}),
			map[string]string{"pair": "fbsd"}, 0.10,
			[]Verdict{VerdictReproduced, VerdictNotReproduced, VerdictNotComparable}, VerdictNotReproduced, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expectation{Name: tt.name, Experiment: "x", Where: tt.where,
				Published: &PublishedTarget{Table: tt.table, Margin: tt.margin}}
			if e.Where == nil {
				e.Where = map[string]string{}
			}
			out := Evaluate(groups, []Expectation{e})[0]
			var got []Verdict
			for _, c := range out.Checks {
				got = append(got, c.Verdict)
				if c.Kind != "published" || c.Table != "home" || c.Published == 0 || c.Margin != tt.margin {
					t.Errorf("check lacks the published row's fields: %+v", c)
				}
			}
			if strings.Join(verdictStrings(got), "|") != strings.Join(verdictStrings(tt.want), "|") {
				t.Fatalf("verdicts %v, want %v: %+v", got, tt.want, out.Checks)
			}
			if out.Verdict != tt.outcome {
				t.Errorf("outcome %s, want %s", out.Verdict, tt.outcome)
			}
			if !strings.Contains(out.Checks[0].Reason, tt.reason) {
				t.Errorf("reason %q does not say %q", out.Checks[0].Reason, tt.reason)
			}
			if Failed([]Outcome{out}) != out.Verdict.Failing() {
				t.Errorf("Failed disagrees with the outcome %s", out.Verdict)
			}
		})
	}
}

func verdictStrings(vs []Verdict) []string {
	var s []string
	for _, v := range vs {
		s = append(s, string(v))
	}
	return s
}

func TestPublishedShapes(t *testing.T) {
	var recs []results.Record
	recs = append(recs, pubRecs("fbsd", "false", "1500", "AMD EPYC", 4.0, 4.1, 3.9, 4.0)...)
	recs = append(recs, pubRecs("fbsd", "true", "1500", "AMD EPYC", 14.0, 14.2, 13.8, 14.1)...) // ×3.5, as published
	recs = append(recs, pubRecs("fbsd", "false", "9000", "AMD EPYC", 5.0, 5.1, 4.9, 5.0)...)    //
	recs = append(recs, pubRecs("fbsd", "true", "9000", "AMD EPYC", 5.5, 5.6, 5.4, 5.5)...)     // ×1.1, published ×3
	groups := results.Group(recs)
	// Seed 000's home table, on other hardware: the absolute numbers are
	// not comparable but the ratios are.
	table := homeTable("receiver", map[string]string{"cpu": "i3-6100U"},
		pc("false", "1500", 2.4), pc("true", "1500", 8.6), pc("false", "9000", 3.0), pc("true", "9000", 9.0))
	sel := func(k, v string) Selector { return Selector{k, v} }
	ratio := func(mtu string, margin float64) Expectation {
		return Expectation{Name: "ratio", Experiment: "x", Where: map[string]string{"pair": "fbsd", "mtu": mtu},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), Published: table, Margin: margin}}
	}
	tests := []struct {
		name string
		e    Expectation
		want []Verdict
	}{
		{"ratio as published", ratio("1500", 0.15), []Verdict{VerdictPass}},
		{"ratio far from published", ratio("9000", 0.15), []Verdict{VerdictFail}},
		// Paired by block the ratio's interval is [3.45, 3.56] (4 blocks):
		// a ±2 % band around 3.58 overlaps its top.
		{"ratio: margin too tight for the spread", ratio("1500", 0.02), []Verdict{VerdictInconclusive}},
		{"absolute cells not comparable", Expectation{Name: "cells", Experiment: "x", Where: map[string]string{},
			Published: &PublishedTarget{Table: table, Margin: 0.1}},
			[]Verdict{VerdictNotComparable, VerdictNotComparable, VerdictNotComparable, VerdictNotComparable}},
		// Sorted: 2.4 (f,1500) < 3.0 (f,9000) < 8.6 (t,1500) < 9.0 (t,9000).
		// 2.4→3.0 holds (4.0 < 5.0); 3.0→8.6 holds (5.0 < 14.0); 8.6→9.0
		// is within the margin (a tie); 8.6's next beyond it: none.
		{"order holds", Expectation{Name: "order", Experiment: "x", Where: map[string]string{},
			Order: &PublishedTarget{Table: table, Margin: 0.15}}, []Verdict{VerdictPass, VerdictPass}},
		// 3.0 (f,9000: 5.0) → 9.0 (t,9000: 5.5) only: passes, so does the
		// chain; an inverted table makes it fail.
		{"order inverted", Expectation{Name: "order", Experiment: "x", Where: map[string]string{"mtu": "1500"},
			Order: &PublishedTarget{Table: homeTable("receiver", nil, pc("false", "1500", 9), pc("true", "1500", 2)), Margin: 0.15}},
			[]Verdict{VerdictFail}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Evaluate(groups, []Expectation{tt.e})[0]
			var got []Verdict
			for _, c := range out.Checks {
				got = append(got, c.Verdict)
			}
			if strings.Join(verdictStrings(got), "|") != strings.Join(verdictStrings(tt.want), "|") {
				t.Fatalf("verdicts %v, want %v: %+v", got, tt.want, out.Checks)
			}
			if tt.e.Ratio != nil && out.Checks[0].Published != 3.5833333333333335 && tt.e.Where["mtu"] == "1500" {
				t.Errorf("published ratio %v, want 8.6/2.4", out.Checks[0].Published)
			}
		})
	}
}

// TestVerdictExitSemantics pins which verdicts fail `lab check` and which
// pass -strict.
func TestVerdictExitSemantics(t *testing.T) {
	for _, tt := range []struct {
		v                Verdict
		failing, settled bool
	}{
		{VerdictPass, false, true}, {VerdictReproduced, false, true}, {VerdictNotComparable, false, true},
		{VerdictInconclusive, false, false}, {VerdictIncomplete, false, false},
		{VerdictFail, true, false}, {VerdictNotReproduced, true, false},
	} {
		if tt.v.Failing() != tt.failing || tt.v.Settled() != tt.settled {
			t.Errorf("%s: failing %t settled %t, want %t %t", tt.v, tt.v.Failing(), tt.v.Settled(), tt.failing, tt.settled)
		}
	}
}

// pubGroup wraps a throughput summary (Gb/s) as a cell group whose
// provenance matches the simulation's table.
func pubGroup(s results.Summary) results.CellGroup {
	g := groupOf("a", s)
	g.Repeats = []results.Record{{Provenance: results.Provenance{Provider: "sim"}}}
	return g
}

// TestSimulatedPublishedErrorRates measures the equivalence rule's error
// rates (README, "Published tables"): a true mean exactly on the margin's
// edge is called reproduced at most 5 % of the time (each one-sided test
// at 5 %); a true mean equal to the published value is called not
// reproduced far less than 2.5 % of the time, and at the edge at most
// 2.5 %. The last case models what a post really is: one run of its own
// system at CV 5 %, checked with the default margin of 10 %.
func TestSimulatedPublishedErrorRates(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	table := &PublishedTable{Name: "sim", Side: "receiver", Metric: results.MetricThroughput, Match: map[string]string{"provider": "sim"}}
	const pub, margin = 10.0, 0.10
	tests := []struct {
		name    string
		n       int
		cv      float64
		truth   float64 // the true mean as a fraction of the published value
		onePost bool    // the published value is itself one run at CV 5 %
		verdict Verdict
		bound   float64
	}{
		{"reproduced at the lower edge, n=5, CV 5%", 5, 0.05, 1 - margin, false, VerdictReproduced, 0.05},
		{"reproduced at the upper edge, n=5, CV 5%", 5, 0.05, 1 + margin, false, VerdictReproduced, 0.05},
		{"reproduced at the lower edge, n=3, CV 3%", 3, 0.03, 1 - margin, false, VerdictReproduced, 0.05},
		{"reproduced at the lower edge, n=10, CV 8%", 10, 0.08, 1 - margin, false, VerdictReproduced, 0.05},
		{"not reproduced at the published value, n=5, CV 5%", 5, 0.05, 1, false, VerdictNotReproduced, 0.025},
		{"not reproduced at the published value, n=3, CV 10%", 3, 0.10, 1, false, VerdictNotReproduced, 0.025},
		{"not reproduced at the lower edge, n=5, CV 5%", 5, 0.05, 1 - margin, false, VerdictNotReproduced, 0.025},
		{"not reproduced, the post one run at CV 5%, n=5", 5, 0.05, 1, true, VerdictNotReproduced, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := 0
			for range simCells {
				p := pub
				if tt.onePost {
					p = pub * (1 + 0.05*r.NormFloat64())
				}
				c := Check{Published: p}
				v := judgePublishedCell(c, pubGroup(sample(r, tt.n, pub*tt.truth, tt.cv)), table, results.Metrics[0], margin).Verdict
				if v == tt.verdict {
					hits++
				}
			}
			rate := float64(hits) / simCells
			t.Logf("%s rate %.4f (%d of %d cells)", tt.verdict, rate, hits, simCells)
			if rate > allowance(tt.bound, simCells) {
				t.Errorf("%s rate %.4f above %.3f", tt.verdict, rate, tt.bound)
			}
		})
	}
}

// TestSimulatedPublishedRatioAtEdge: a true ratio exactly on the edge of
// published ratio × (1 ± margin) passes at most 5 % of the time.
func TestSimulatedPublishedRatioAtEdge(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 2))
	const expected, margin = 3.0, 0.15
	for _, tt := range []struct {
		name string
		edge float64
		n    int
		cv   float64
	}{
		{"lower edge, n=5+5, CV 5%", 1 - margin, 5, 0.05},
		{"upper edge, n=5+5, CV 5%", 1 + margin, 5, 0.05},
		{"lower edge, n=3+3, CV 10%", 1 - margin, 3, 0.10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			passes := 0
			for range simCells {
				of := sample(r, tt.n, 10*expected*tt.edge, tt.cv)
				over := sample(r, tt.n, 10, tt.cv)
				if judgePublishedRatio(Check{}, of, over, expected, margin).Verdict == VerdictPass {
					passes++
				}
			}
			rate := float64(passes) / simCells
			t.Logf("false pass rate %.4f (%d of %d)", rate, passes, simCells)
			if rate > allowance(0.05, simCells) {
				t.Errorf("false pass rate %.4f above 5%%", rate)
			}
		})
	}
}
