package verdicts

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// cellRecs makes one record per throughput value for a cell with values
// lro and mtu of pair p.
func cellRecs(p, lro, mtu string, retr int64, gbps ...float64) []results.Record {
	var recs []results.Record
	for i, v := range gbps {
		recs = append(recs, results.Record{Experiment: "x", Pair: p, Repeat: i + 1,
			Cell:    []results.CellValue{{Name: "lro", Value: lro}, {Name: "mtu", Value: mtu}},
			CellKey: "lro=" + lro + ",mtu=" + mtu,
			Metrics: bench.Sample{ThroughputBps: v * 1e9, Retransmits: retr + int64(i)}})
	}
	return recs
}

func TestEvaluate(t *testing.T) {
	var recs []results.Record
	recs = append(recs, cellRecs("fbsd", "false", "1500", 0, 2.3, 2.4, 2.5)...)
	recs = append(recs, cellRecs("fbsd", "true", "1500", 0, 8.5, 8.6, 8.7)...)
	recs = append(recs, cellRecs("fbsd", "false", "9000", 0, 3.0, 6.0, 9.0)...)   // very noisy
	recs = append(recs, cellRecs("fbsd", "true", "9000", 0, 10.0, 13.0, 16.0)...) // very noisy
	recs = append(recs, cellRecs("deb", "true", "9000", 100, 17.4, 17.5, 17.6)...)
	recs = append(recs, cellRecs("deb", "true", "1500", 5, 16.1)...) // single run
	groups := results.Group(recs)

	sel := func(k, v string) Selector { return Selector{k, v} }
	tests := []struct {
		name   string
		e      Expectation
		want   Verdict
		checks int
	}{
		{"absolute pass", Expectation{Where: map[string]string{"pair": "deb", "mtu": "9000"},
			Throughput: &Target{17.5, 0.15}}, VerdictPass, 1},
		{"absolute fail", Expectation{Where: map[string]string{"pair": "deb", "mtu": "9000"},
			Throughput: &Target{10, 0.15}}, VerdictFail, 1},
		{"absolute CI wider than band", Expectation{Where: map[string]string{"pair": "fbsd", "lro": "true", "mtu": "9000"},
			Throughput: &Target{13, 0.10}}, VerdictInconclusive, 1},
		{"absolute single run", Expectation{Where: map[string]string{"pair": "deb", "mtu": "1500"},
			Throughput: &Target{16, 0.15}}, VerdictInconclusive, 1},
		{"ratio pass", Expectation{Where: map[string]string{"pair": "fbsd", "mtu": "1500"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 2.5}}, VerdictPass, 1},
		{"ratio fail", Expectation{Where: map[string]string{"pair": "fbsd", "mtu": "1500"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 5}}, VerdictFail, 1},
		{"ratio straddles", Expectation{Where: map[string]string{"pair": "fbsd", "mtu": "9000"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 2.5}}, VerdictInconclusive, 1},
		// Paired by block both ratios' intervals lie within [1, 10] (the
		// unpaired Fieller interval of mtu=9000 reached below 1).
		{"ratio between, one row per companion pair", Expectation{Where: map[string]string{"pair": "fbsd"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), Between: [2]float64{1, 10}}}, VerdictPass, 2},
		{"ratio without companion", Expectation{Where: map[string]string{"pair": "deb"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 1}}, VerdictInconclusive, 2},
		{"retransmits pass", Expectation{Where: map[string]string{"pair": "fbsd", "mtu": "1500"},
			Retransmits: &Target{Value: 10}}, VerdictPass, 2},
		{"retransmits fail", Expectation{Where: map[string]string{"pair": "deb", "mtu": "9000"},
			Retransmits: &Target{Value: 10}}, VerdictFail, 1},
		{"nothing matches", Expectation{Where: map[string]string{"pair": "nope"},
			Throughput: &Target{1, 0.1}}, VerdictInconclusive, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Name, tt.e.Experiment = tt.name, "x"
			outs := Evaluate(groups, []Expectation{tt.e})
			if len(outs) != 1 {
				t.Fatalf("%d outcomes", len(outs))
			}
			o := outs[0]
			if o.Verdict != tt.want || len(o.Checks) != tt.checks {
				t.Errorf("verdict %s with %d checks, want %s with %d", o.Verdict, len(o.Checks), tt.want, tt.checks)
				for _, c := range o.Checks {
					t.Logf("  %+v", c)
				}
			}
			if Failed(outs) != (tt.want == VerdictFail) {
				t.Errorf("Failed = %v", Failed(outs))
			}
		})
	}
}

// TestRatioBounds: the ratio's interval is Fieller's, narrower than the
// old interval arithmetic on the two cells' CIs and around the estimate.
func TestRatioBounds(t *testing.T) {
	of := results.Summarize([]float64{8.5, 8.6, 8.7})
	over := results.Summarize([]float64{2.3, 2.4, 2.5})
	c := judgeRatio(Check{}, of, over, RatioTarget{AtLeast: 2.5})
	lo, hi, ok := Fieller(of, over, 0.05)
	if !ok || c.Low != lo || c.High != hi || !(c.Low < c.Value && c.Value < c.High) {
		t.Errorf("bounds %v < %v < %v, Fieller [%v, %v] %v", c.Low, c.Value, c.High, lo, hi, ok)
	}
	if c.Low <= of.CI95Low/over.CI95High || c.High >= of.CI95High/over.CI95Low {
		t.Errorf("Fieller [%v, %v] not inside the interval arithmetic [%v, %v]", c.Low, c.High,
			of.CI95Low/over.CI95High, of.CI95High/over.CI95Low)
	}
}

// TestIssue11Examples are the cases reported in issue 11, with the verdict
// and the words of the reason each must now give.
func TestIssue11Examples(t *testing.T) {
	sel := func(k, v string) Selector { return Selector{k, v} }
	failed := func(recs []results.Record, n int) []results.Record {
		for i := range n {
			recs[i].Error, recs[i].Metrics = "iperf3: connection refused", bench.Sample{}
		}
		return recs
	}
	var gapped []results.Record
	for _, r := range cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1, 10) {
		if r.Repeat != 2 {
			gapped = append(gapped, r)
		}
	}
	tests := []struct {
		name   string
		recs   []results.Record
		e      Expectation
		want   Verdict
		reason string
	}{
		{"whole CI below the band fails", cellRecs("p", "true", "1500", 0, 4.2, 5.0, 5.8),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictFail, "entirely below"},
		{"CI overlapping the band's lower edge is inconclusive", cellRecs("p", "true", "1500", 0, 8.0, 8.6, 9.2),
			Expectation{Throughput: &Target{10, 0.15}}, VerdictInconclusive, "overlaps an edge of [8.5, 11.5]"},
		{"CI wider than the band", cellRecs("p", "true", "1500", 0, 7, 10, 13),
			Expectation{Throughput: &Target{10, 0.15}}, VerdictInconclusive, "is wider than the band"},
		{"CI inside the band passes", cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictPass, "inside"},
		{"CI overlapping an edge, narrower than the band", cellRecs("p", "true", "1500", 0, 10.3, 10.4, 10.5),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictInconclusive, "overlaps an edge"},
		{"retransmits max 0 with every run ≥ 34 fails", cellRecs("p", "true", "1500", 34, 9, 9),
			Expectation{Retransmits: &Target{Value: 0}}, VerdictFail, "every one of 2 runs exceeded"},
		{"retransmits max 0 with a single run of 34 fails", cellRecs("p", "true", "1500", 34, 9),
			Expectation{Retransmits: &Target{Value: 0}}, VerdictFail, "every one of 1 runs exceeded"},
		{"one run without retransmits is inconclusive", cellRecs("p", "true", "1500", 0, 9, 9)[:1],
			Expectation{Retransmits: &Target{Value: 0}}, VerdictInconclusive, "1 run"},
		{"ratio whose denominator CI reaches 0", append(cellRecs("p", "true", "1500", 0, 8, 9, 10), cellRecs("p", "false", "1500", 0, 0.1, 3, 0.2)...),
			Expectation{Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 2}}, VerdictInconclusive, "block-paired ratio straddles"},
		{"failed runs make a passing cell incomplete", failed(cellRecs("p", "true", "1500", 0, 0, 9.9, 10, 10.1), 1),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictIncomplete, "1 of 4 runs failed"},
		{"failed runs leave a failing cell failed", failed(cellRecs("p", "true", "1500", 0, 0, 4.2, 5.0, 5.8), 1),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictFail, "1 of 4 runs failed"},
		{"every run failed", failed(cellRecs("p", "true", "1500", 0, 0, 0), 2),
			Expectation{Throughput: &Target{10, 0.05}}, VerdictIncomplete, "2 of 2 runs failed"},
		{"a gap in the repeats is a missing run", gapped,
			Expectation{Throughput: &Target{10, 0.05}}, VerdictIncomplete, "1 of 4 runs missing"},
		{"failed runs in the over cell make a ratio incomplete",
			append(cellRecs("p", "true", "1500", 0, 8.5, 8.6, 8.7), failed(cellRecs("p", "false", "1500", 0, 0, 2.3, 2.4, 2.5), 1)...),
			Expectation{Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), AtLeast: 2.5}}, VerdictIncomplete, "1 of 7 runs failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.e.Name, tt.e.Experiment = tt.name, "x"
			o := Evaluate(results.Group(tt.recs), []Expectation{tt.e})[0]
			if len(o.Checks) != 1 {
				t.Fatalf("%d checks", len(o.Checks))
			}
			c := o.Checks[0]
			if c.Verdict != tt.want || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("%s: %q, want %s: …%s…", c.Verdict, c.Reason, tt.want, tt.reason)
			}
			if Failed([]Outcome{o}) != (tt.want == VerdictFail) {
				t.Errorf("Failed = %v", !(tt.want == VerdictFail))
			}
		})
	}
}

func TestMarkIncomplete(t *testing.T) {
	outs := []Outcome{{Verdict: VerdictPass, Checks: []Check{{Verdict: VerdictPass}}},
		{Verdict: VerdictFail, Checks: []Check{{Verdict: VerdictFail}, {Verdict: VerdictInconclusive}}}}
	MarkIncomplete(outs, "run interrupted")
	if outs[0].Verdict != VerdictIncomplete || outs[1].Verdict != VerdictFail || outs[1].Checks[1].Verdict != VerdictIncomplete ||
		!strings.HasPrefix(outs[0].Checks[0].Reason, "run interrupted") {
		t.Errorf("%+v", outs)
	}
}

func TestParseSelector(t *testing.T) {
	for in, want := range map[string]Selector{"lro=true": {"lro", "true"}, " cc = reno ": {"cc", "reno"}, "loss=1%": {"loss", "1%"}} {
		if got, err := ParseSelector(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"lro", "=x", ""} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestBandMDE: a band check (and a published cell) states its MDE: the
// tolerance plus (t₀.₉₇₅ + t₀.₈₀ at n − 1) standard errors of the mean,
// relative to the expected value — for 5 runs of SD 1 around 10 against
// 10 ± 10 %: 0.1 + (2.776 + 0.941) × 1/√5 / 10 = 26.6 %.
func TestBandMDE(t *testing.T) {
	s := results.Summarize([]float64{9, 10, 11, 10, 10})
	s.Stdev = 1
	c := judgeBand(Check{}, 5, s, Target{Value: 10, Tolerance: 0.1})
	if math.Abs(c.MDE-(0.1+(2.776+0.941)/math.Sqrt(5)/10)) > 1e-3 {
		t.Errorf("band MDE %.4f, want 0.266", c.MDE)
	}
	if c := judgeBand(Check{}, 1, results.Summarize([]float64{10}), Target{Value: 10, Tolerance: 0.1}); c.MDE != 0 {
		t.Errorf("one run: MDE %g, want none", c.MDE)
	}
}

// Failed reports whether any outcome failed (or was not reproduced).
func Failed(outs []Outcome) bool {
	return slices.ContainsFunc(outs, func(o Outcome) bool { return o.Verdict.Failing() })
}
