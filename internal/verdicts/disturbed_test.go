package verdicts

import (
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

func TestMarkDisturbed(t *testing.T) {
	tests := []struct {
		server, client float64
		want           string
	}{
		{0, 0, ""},
		{5, 5, ""}, // at the threshold: not above it
		{12.5, 0, "CPU steal 12.5% on the server"},
		{0, 6, "CPU steal 6.0% on the client"},
	}
	for _, tc := range tests {
		rec := results.Record{Metrics: bench.Sample{ServerCPU: bench.CPUUsage{Steal: tc.server}, ClientCPU: bench.CPUUsage{Steal: tc.client}}}
		got := results.MarkDisturbed(&rec)
		if got != (tc.want != "") || !strings.HasPrefix(rec.Disturbed, tc.want) {
			t.Errorf("steal %v/%v: %v %q, want %q", tc.server, tc.client, got, rec.Disturbed, tc.want)
		}
	}
	pressure := []struct {
		env  *results.Environment
		want string
	}{
		{nil, ""}, // a record from before environments
		{&results.Environment{CPUPressure: 94, CPUPressureKnown: false}, ""},
		// pressure saturates on a shared 2-vCPU runner (MarkDisturbed): it
		// never marks a run on its own
		{&results.Environment{CPUPressure: 94.2, CPUPressureKnown: true, Load1Start: 15, Load1End: 48}, ""},
		{&results.Environment{CPUPressure: 100, CPUPressureKnown: true, Load1Start: 1, Load1End: 1}, ""},
	}
	for _, tc := range pressure {
		rec := results.Record{Environment: tc.env}
		got := results.MarkDisturbed(&rec)
		if got != (tc.want != "") || !strings.HasPrefix(rec.Disturbed, tc.want) {
			t.Errorf("environment %+v: %v %q, want %q", tc.env, got, rec.Disturbed, tc.want)
		}
	}
	rec := results.Record{Environment: &results.Environment{CPUPressure: 80, CPUPressureKnown: true}, Metrics: bench.Sample{ClientCPU: bench.CPUUsage{Steal: 9}}}
	if results.MarkDisturbed(&rec); !strings.HasPrefix(rec.Disturbed, "CPU steal 9.0% on the client (") {
		t.Errorf("steal and pressure: %q, want the steal alone named", rec.Disturbed)
	}
	g := results.Group([]results.Record{{CellKey: "a", Repeat: 1, Disturbed: "x"}, {CellKey: "a", Repeat: 2}})
	if len(g) != 1 || g[0].Disturbed != 1 {
		t.Errorf("groups %+v: want one disturbed run counted", g)
	}
}

// Three applies of one cell: the pooled sample has one observation per
// apply (its mean), so the spread between applies is what the CI sees.
func TestPoolRunsOneObservationPerApply(t *testing.T) {
	rec := func(run string, repeat int, gbps float64, failed bool) results.Record {
		r := results.Record{RunID: run, Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: repeat}
		r.Metrics.ThroughputBps = gbps * 1e9
		if failed {
			r.Error = "boom"
		}
		return r
	}
	runs := map[string][]results.Record{
		"a": {rec("a", 1, 13, false), rec("a", 2, 14, false), rec("a", 3, 13.5, false)},
		"b": {rec("b", 1, 7, false), rec("b", 2, 7, false), rec("b", 3, 6.9, false)},
		"c": {rec("c", 1, 9, false), rec("c", 2, 9.2, true), rec("c", 3, 9.1, false)},
	}
	pooled := results.PoolRuns(runs)
	if len(pooled) != 3 {
		t.Fatalf("%d pooled records, want one per apply", len(pooled))
	}
	g := results.Group(pooled)
	if len(g) != 1 || g[0].N != 2 || g[0].Failed != 1 {
		t.Fatalf("group %+v: want 2 apply means and apply c failed", g)
	}
	if m := g[0].ThroughputBps.Mean / 1e9; m < 10.2 || m > 10.3 {
		t.Errorf("mean of the apply means %.3f, want (13.5+6.967)/2", m)
	}
	if !g[0].ThroughputBps.Known || g[0].ThroughputBps.HalfWidth() < 20e9 {
		t.Errorf("the CI should be as wide as the applies disagree: %+v", g[0].ThroughputBps)
	}
}

// A disturbed run makes a check inconclusive unless the undisturbed runs
// alone give its verdict too, and the same for a compared cell; every
// output names it.
func TestDisturbedRunsDecideNothing(t *testing.T) {
	quiet := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1)
	stolen := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1)
	stolen[2].Disturbed = "CPU steal 40.0% on the server"
	slow := cellRecs("p", "true", "1500", 0, 4.9, 5, 5.1)
	slow[0].Disturbed = "CPU pressure 94.0% on the runner"
	tests := []struct {
		name   string
		recs   []results.Record
		want   Verdict
		reason string
	}{
		{"quiet pass", quiet, VerdictPass, ""},
		{"disturbed pass the 2 others do not give", stolen, VerdictInconclusive, "without them: inconclusive"},
		{"disturbed fail the 2 others give", slow, VerdictFail, "with the 1 disturbed run left out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expectation{Name: "x", Experiment: "x", Throughput: &Target{10, 0.05}}
			c := Evaluate(results.Group(tt.recs), []Expectation{e})[0].Checks[0]
			if c.Verdict != tt.want {
				t.Errorf("%s: %q, want %s", c.Verdict, c.Reason, tt.want)
			}
			if tt.reason != "" && (c.Disturbed != 1 || !strings.Contains(c.Reason, "1 of 3 runs disturbed (CPU steal above 5%)") ||
				!strings.Contains(c.Reason, tt.reason)) {
				t.Errorf("reason %q, disturbed %d: want the disturbed run named and %q", c.Reason, c.Disturbed, tt.reason)
			}
		})
	}
	// The test's improvement is its disturbed runs': without them, no change.
	faster := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1, 13, 13.1, 12.9, 13, 13.1, 12.9)
	for i := 3; i < 9; i++ {
		faster[i].Disturbed = "CPU pressure 94.0% on the runner"
	}
	d := Compare(results.Group(quiet), results.Group(faster), CompareOptions{})[0]
	if d.Change != TooNoisy || d.TestDisturbed != 6 || !slices.Contains(d.Notes, "test: 6 run(s) disturbed (CPU steal or runner CPU pressure)") ||
		!slices.Contains(d.Notes, "the runs say improved, but without the disturbed runs: no change") {
		t.Errorf("compare of a cell improved by its disturbed runs: %s %v", d.Change, d.Notes)
	}
}

// Pooling applies keeps the noise guard: an apply with a disturbed run is
// a disturbed observation of the pooled sample.
func TestPoolRunsKeepsDisturbed(t *testing.T) {
	a, b := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1), cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1)
	b[1].Disturbed = "CPU steal 40.0% on the server"
	g := results.Group(results.PoolRuns(map[string][]results.Record{"a": a, "b": b}))
	if len(g) != 1 || g[0].Disturbed != 1 {
		t.Fatalf("pooled groups %+v: want one disturbed apply", g)
	}
	c := Evaluate(g, []Expectation{{Name: "x", Experiment: "x", Throughput: &Target{10, 0.05}}})[0].Checks[0]
	if c.Verdict != VerdictInconclusive || c.Disturbed != 1 {
		t.Errorf("pooled check %s %q", c.Verdict, c.Reason)
	}
}

// For a metric whose direction a measurement established
// (Metric.Disturbance), the noise guard also keeps what a move that way
// cannot explain: with rates only lowered and latency only raised, a rate
// above its band and a latency below its band or within its maximum stand
// on disturbed runs, even when no undisturbed run is left. With the
// catalogue as it is — no direction established — none of them stands.
func TestDisturbedVerdictsThatStand(t *testing.T) {
	lat := func(us ...float64) []results.Record {
		recs := cellRecs("p", "true", "1500", 0, 1, 1, 1)
		for i := range recs {
			recs[i].Metrics.Latency = &bench.LatencySample{MeanUs: us[i]}
		}
		for i := range recs {
			recs[i].Disturbed = "CPU steal 30.0% on the client"
		}
		return recs
	}
	rate := func(gbps ...float64) []results.Record {
		recs := cellRecs("p", "true", "1500", 1, gbps...)
		for i := range recs {
			recs[i].Disturbed = "CPU pressure 90.0% on the runner"
		}
		return recs
	}
	band := func(key string, v float64) Expectation {
		return Expectation{Name: "x", Experiment: "x", Metrics: []MetricTarget{{Metric: key, Value: v, Tolerance: 0.1}}}
	}
	maxOf := func(key string, v float64) Expectation {
		return Expectation{Name: "x", Experiment: "x", Metrics: []MetricTarget{{Metric: key, Value: v, IsMax: true}}}
	}
	tests := []struct {
		name   string
		recs   []results.Record
		e      Expectation
		want   Verdict
		stands bool
	}{
		{"rate above its band", rate(9.9, 10, 10.1), Expectation{Name: "x", Experiment: "x", Throughput: &Target{1, 0.1}}, VerdictFail, true},
		{"rate below its band", rate(9.9, 10, 10.1), Expectation{Name: "x", Experiment: "x", Throughput: &Target{100, 0.1}}, VerdictInconclusive, false},
		{"rate inside its band", rate(9.9, 10, 10.1), Expectation{Name: "x", Experiment: "x", Throughput: &Target{10, 0.1}}, VerdictInconclusive, false},
		{"rate above a maximum", rate(9.9, 10, 10.1), maxOf(results.MetricThroughput, 1), VerdictFail, true},
		{"latency below its band", lat(250, 260, 255), band(results.MetricLatencyMean, 5000), VerdictFail, true},
		{"latency within its maximum", lat(250, 260, 255), maxOf(results.MetricLatencyMean, 1000), VerdictPass, true},
		{"latency above its band", lat(250, 260, 255), band(results.MetricLatencyMean, 100), VerdictInconclusive, false},
		{"latency above its maximum", lat(250, 260, 255), maxOf(results.MetricLatencyMean, 100), VerdictInconclusive, false},
		{"a count moves either way", rate(9.9, 10, 10.1), Expectation{Name: "x", Experiment: "x", Retransmits: &Target{Value: 0}}, VerdictInconclusive, false},
		{"CPU moves either way", rate(9.9, 10, 10.1), maxOf(results.MetricServerCPU, 200), VerdictInconclusive, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Evaluate(results.Group(tt.recs), []Expectation{tt.e})[0].Checks[0]
			if c.Verdict != VerdictInconclusive || c.Disturbed != 3 || !strings.Contains(c.Reason, "no run is left without them") {
				t.Fatalf("no direction established: %s (%d disturbed): %q, want inconclusive", c.Verdict, c.Disturbed, c.Reason)
			}
			withDirection(t, results.MetricThroughput, results.OnlyDown)
			for _, k := range []string{results.MetricLatencyMean, results.MetricLatencyP50, results.MetricLatencyP90, results.MetricLatencyP99} {
				withDirection(t, k, results.OnlyUp)
			}
			c = Evaluate(results.Group(tt.recs), []Expectation{tt.e})[0].Checks[0]
			if c.Verdict != tt.want || c.Disturbed != 3 {
				t.Fatalf("%s (%d disturbed): %q, want %s", c.Verdict, c.Disturbed, c.Reason, tt.want)
			}
			if got := strings.Contains(c.Reason, "which would not change the verdict"); got != tt.stands {
				t.Errorf("reason %q: says the verdict stands %v, want %v", c.Reason, got, tt.stands)
			}
		})
	}
}

// For a metric whose direction a measurement established, compare keeps
// a regression when only the base was disturbed and an improvement when
// only the test was, even with every run of that side disturbed; any
// other disturbed change is too noisy. With no direction established,
// every one is too noisy.
func TestDisturbedChangesThatStand(t *testing.T) {
	fast, slow := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1), cellRecs("p", "true", "1500", 0, 4.9, 5, 5.1)
	disturb := func(recs []results.Record) []results.Record {
		out := slices.Clone(recs)
		for i := range out {
			out[i].Disturbed = "CPU steal 30.0% on the server"
		}
		return out
	}
	tests := []struct {
		name       string
		base, test []results.Record
		opt        CompareOptions
		want       Change
	}{
		{"regression, base disturbed", disturb(fast), slow, CompareOptions{}, Regressed},
		{"regression, test disturbed", fast, disturb(slow), CompareOptions{}, TooNoisy},
		{"improvement, test disturbed", slow, disturb(fast), CompareOptions{}, Improved},
		{"improvement, base disturbed", disturb(slow), fast, CompareOptions{}, TooNoisy},
		{"no change, one side disturbed", fast, disturb(fast), CompareOptions{}, TooNoisy},
		{"retransmits regression, base disturbed", disturb(fast), cellRecs("p", "true", "1500", 1000, 9.9, 10, 10.1), CompareOptions{Metric: results.MetricRetransmits}, TooNoisy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Compare(results.Group(tt.base), results.Group(tt.test), tt.opt)[0]
			if d.Change != TooNoisy {
				t.Errorf("no direction established: %s, want too noisy: %v", d.Change, d.Notes)
			}
			withDirection(t, results.MetricThroughput, results.OnlyDown)
			d = Compare(results.Group(tt.base), results.Group(tt.test), tt.opt)[0]
			if d.Change != tt.want {
				t.Errorf("%s, want %s: %v", d.Change, tt.want, d.Notes)
			}
		})
	}
}
