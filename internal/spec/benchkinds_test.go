package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
)

// TestOtherBenchKinds decodes iperf2 and netperf blocks and checks the
// parameters they give (and their defaults).
func TestOtherBenchKinds(t *testing.T) {
	const head = "lab \"b\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"
	tests := []struct {
		name, block string
		want        bench.Params
		err         string
	}{
		{name: "iperf2 defaults", block: `iperf2 {}`,
			want: bench.Params{Tool: "iperf2", Duration: 10 * time.Second, Interval: time.Second, Parallel: 1, Enhanced: true}},
		{name: "iperf2 seed 003", block: `iperf2 {
  duration = "10s"
  interval = "1s"
  length   = "1M"
  bind     = "198.18.0.2"
  congestion_control = "reno"
  loopback = true
}`, want: bench.Params{Tool: "iperf2", Duration: 10 * time.Second, Interval: time.Second, Parallel: 1, Enhanced: true,
			Length: "1M", Bind: "198.18.0.2", CongestionControl: "reno", Loopback: true}},
		{name: "iperf2 dualtest and tradeoff", block: `iperf2 {
  dualtest = true
  tradeoff = true
}`, err: "Conflicting iperf2 modes"},
		{name: "iperf2 bad bind", block: `iperf2 { bind = "1.2.3.4; reboot" }`, err: "Invalid bind address"},
		{name: "netperf seed 004", block: `netperf {
  send_size   = "128"
  send_buffer = "8K"
  recv_buffer = "8K"
}`, want: bench.Params{Tool: "netperf", Duration: 10 * time.Second,
			Netperf: &bench.NetperfParams{Test: "TCP_STREAM", SendSize: "128", SendBuffer: "8K", RecvBuffer: "8K"}}},
		{name: "netperf rr", block: `netperf {
  test = "TCP_RR"
  request_response = "1,1"
}`, want: bench.Params{Tool: "netperf", Duration: 10 * time.Second,
			Netperf: &bench.NetperfParams{Test: "TCP_RR", RequestResponse: "1,1"}}},
		{name: "netperf bad test", block: `netperf { test = "SCTP_RR" }`, err: "Invalid netperf test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "experiment \"e\" {\n  pairs = [pair.p]\n" + tt.block + "\n}\n"
			l, diags := LoadFiles("", map[string][]byte{"b.hcl": []byte(src)}, Options{})
			if tt.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.err) {
					t.Fatalf("diags %v, want %q", diags, tt.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			cs, diags := l.Experiments[0].Eval(map[string]cty.Value{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			got, want := cs.Bench, tt.want
			if (got.Netperf == nil) != (want.Netperf == nil) || got.Netperf != nil && *got.Netperf != *want.Netperf {
				t.Errorf("netperf params %+v, want %+v", got.Netperf, want.Netperf)
			}
			got.Netperf, want.Netperf = nil, nil
			if got != want {
				t.Errorf("params\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
