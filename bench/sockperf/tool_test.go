package sockperf_test

import (
	"testing"
	"time"

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
