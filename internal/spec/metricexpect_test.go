package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestMetricExpects decodes expectations on latency, transactions, loss
// and jitter into metric keys, and refuses malformed ones with a ranged
// diagnostic naming the problem.
func TestMetricExpects(t *testing.T) {
	head := "lab \"x\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"
	exp := func(body string) string {
		return head + "experiment \"e\" {\n  pairs = [pair.p]\n  iperf2 { bounceback = true }\n  expect \"x\" {\n" + body + "\n  }\n}\n"
	}
	valid := []struct {
		body string
		want []MetricExpect
	}{
		{`latency = { p99_us = 80, tolerance = "20%" }`, []MetricExpect{{Metric: "latency_p99_us", Value: 80, Tolerance: 0.2}}},
		{`latency = { mean_us = 21.5, tolerance = 10 }`, []MetricExpect{{Metric: "latency_mean_us", Value: 21.5, Tolerance: 0.1}}},
		{`transactions = { per_sec = 45000, tolerance = "25%" }`, []MetricExpect{{Metric: "transactions_per_sec", Value: 45000, Tolerance: 0.25}}},
		{`latency = { max_p99_us = 500 }`, []MetricExpect{{Metric: "latency_p99_us", Value: 500, Max: true}}},
		{`cpu = { max_router_pct = 80 }`, []MetricExpect{{Metric: "router_cpu_pct", Value: 80, Max: true}}},
		{`cpu = { server_pct = 50, tolerance = "10%" }`, []MetricExpect{{Metric: "server_cpu_pct", Value: 50, Tolerance: 0.1}}},
		{`packets = { per_sec = 100000, tolerance = "5%" }`, []MetricExpect{{Metric: "packets_per_sec", Value: 100000, Tolerance: 0.05}}},
		{`cycles_per_bit = { max_server = 1 }`, []MetricExpect{{Metric: "server_cycles_per_bit", Value: 1, Max: true}}},
		{`loss = { max = "0.1%" }`, []MetricExpect{{Metric: "loss_pct", Value: 0.1, Max: true}}},
		{"loss = { max = 0 }\n jitter = { max_ms = 0.05 }", []MetricExpect{{Metric: "jitter_ms", Value: 0.05, Max: true}, {Metric: "loss_pct", Max: true}}},
	}
	for _, tt := range valid {
		l, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(exp(tt.body))}, Options{})
		if diags.HasErrors() {
			t.Errorf("%s: %v", tt.body, diags)
			continue
		}
		if got := l.Experiments[0].Expects[0].Metrics; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.body, got, tt.want)
		}
	}
	invalid := map[string]string{
		`latency = { p99_us = 80 }`:                             "needs tolerance",
		`latency = { p99_us = 80, p50_us = 20, tolerance = 5 }`: "one of max_mean_us, max_p50_us",
		`latency = { max_p99_us = 80, tolerance = 5 }`:          "a maximum takes no tolerance",
		`latency = { p95_us = 80, tolerance = 5 }`:              `no key "p95_us"`,
		`latency = { p99_us = -1, tolerance = 5 }`:              "finite number ≥ 0",
		`loss = { max = "lots" }`:                               "percentage",
		`loss = { max = "150%" }`:                               "between 0% and 100%",
		`loss = { max = 1, tolerance = 5 }`:                     `no key "tolerance"`,
		`jitter = { }`:                                          "needs one of max_ms",
		`cpu = { max_router_pct = 80, tolerance = 5 }`:          "a maximum takes no tolerance",
		`transactions = { per_sec = "fast", tolerance = 5 }`:    "per_sec",
	}
	for body, want := range invalid {
		_, diags := LoadFiles("", map[string][]byte{"main.hcl": []byte(exp(body))}, Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", body, diags, want)
			continue
		}
		for _, d := range diags {
			if d.Subject == nil || d.Subject.Start.Line < 5 {
				t.Errorf("%s: diagnostic without the expect's range: %v", body, d)
			}
		}
	}
}
