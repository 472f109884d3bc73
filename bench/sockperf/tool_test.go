package sockperf_test

import (
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/benchtest"
)

// TestConformance runs the tools' conformance suite on sockperf.
func TestConformance(t *testing.T) {
	benchtest.Conformance(t, benchtest.Harness{
		Tool: "sockperf",
		Valid: `mode         = "under-load"
message_size = 64
mps          = 2000
tcp          = true
port         = 22113`,
		Want: bench.Params{Tool: "sockperf", Duration: 10 * time.Second, Length: "64", Port: 22113,
			Sockperf: &bench.SockperfParams{Mode: "under-load", MPS: 2000}},
		Invalid: []benchtest.Refusal{
			{Body: `mode = "fast"`, Summary: "Invalid sockperf mode"},
			{Body: `mps = 100`, Summary: "Invalid sockperf mps"},
			{Body: `message_size = 13`, Summary: "Invalid message_size"},
			{Body: `duration = "1.5s"`, Summary: "Invalid duration"},
		},
		Outputs: []benchtest.Output{
			{Client: "udp-ping-pong-64.txt"}, {Client: "tcp-ping-pong-64.txt"},
			{Client: "udp-under-load-5000.txt"}, {Client: "tcp-throughput-1472.txt"},
		},
	})
}

// TestNullMPS: a null mps (what `matrix.mode == "under-load" ? 5000 : null`
// gives the other modes) leaves the rate unset, so the mps check does not
// refuse it; a written mps with another mode is refused.
func TestNullMPS(t *testing.T) {
	for body, wantErr := range map[string]bool{
		"mode = \"ping-pong\"\nmps = null":  false,
		"mode = \"under-load\"\nmps = 5000": false,
		"mode = \"ping-pong\"\nmps = 5000":  true,
	} {
		f, diags := hclsyntax.ParseConfig([]byte(body), "t.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, diags = bench.Lookup("sockperf").Block.Decode("sockperf", f.Body, hcl.Range{}, nil)
		if diags.HasErrors() != wantErr {
			t.Errorf("%q: %v", body, diags)
		}
	}
}
