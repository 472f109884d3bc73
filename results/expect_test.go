package results

import (
	"testing"

	"github.com/lab-bench/lab/bench"
)

// cellRecs makes one record per throughput value for a cell with values
// lro and mtu of pair p.
func cellRecs(p, lro, mtu string, retr int64, gbps ...float64) []Record {
	var recs []Record
	for i, v := range gbps {
		recs = append(recs, Record{Experiment: "x", Pair: p, Repeat: i + 1,
			Cell:    []CellValue{{Name: "lro", Value: lro}, {Name: "mtu", Value: mtu}},
			CellKey: "lro=" + lro + ",mtu=" + mtu,
			Metrics: bench.Sample{ThroughputBps: v * 1e9, Retransmits: retr + int64(i)}})
	}
	return recs
}

func TestEvaluate(t *testing.T) {
	var recs []Record
	recs = append(recs, cellRecs("fbsd", "false", "1500", 0, 2.3, 2.4, 2.5)...)
	recs = append(recs, cellRecs("fbsd", "true", "1500", 0, 8.5, 8.6, 8.7)...)
	recs = append(recs, cellRecs("fbsd", "false", "9000", 0, 3.0, 6.0, 9.0)...)   // very noisy
	recs = append(recs, cellRecs("fbsd", "true", "9000", 0, 10.0, 13.0, 16.0)...) // very noisy
	recs = append(recs, cellRecs("deb", "true", "9000", 100, 17.4, 17.5, 17.6)...)
	recs = append(recs, cellRecs("deb", "true", "1500", 5, 16.1)...) // single run
	groups := Group(recs)

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
		{"ratio between, one row per companion pair", Expectation{Where: map[string]string{"pair": "fbsd"},
			Ratio: &RatioTarget{Of: sel("lro", "true"), Over: sel("lro", "false"), Between: [2]float64{1, 10}}}, VerdictInconclusive, 2},
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

func TestRatioBounds(t *testing.T) {
	of := Summarize([]float64{8.5, 8.6, 8.7})
	over := Summarize([]float64{2.3, 2.4, 2.5})
	c := judgeRatio(Check{}, of, over, RatioTarget{AtLeast: 2.5})
	if !(c.Low < c.Value && c.Value < c.High) || c.Low != of.CI95Low/over.CI95High || c.High != of.CI95High/over.CI95Low {
		t.Errorf("bounds %v < %v < %v", c.Low, c.Value, c.High)
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
