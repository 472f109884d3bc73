package netperf_test

import (
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/benchtest"
)

// TestConformance runs the tools' conformance suite on netperf.
func TestConformance(t *testing.T) {
	benchtest.Conformance(t, benchtest.Harness{
		Tool: "netperf",
		Valid: `test             = "TCP_RR"
duration         = "5s"
request_response = "1,1"
confidence       = 10
port             = 22113`,
		Want: bench.Params{Tool: "netperf", Duration: 5 * time.Second, Port: 22113,
			Netperf: &bench.NetperfParams{Test: "TCP_RR", RequestResponse: "1,1", Confidence: 10}},
		Invalid: []benchtest.Refusal{
			{Body: `test = "TCP_MAERTS"`, Summary: "Invalid netperf test"},
			{Body: `send_size = "0"`, Summary: "Invalid size"},
			{Body: `request_response = "1"`, Summary: "Invalid request/response sizes"},
			{Body: `confidence = 1`, Summary: "Invalid confidence"},
			{Body: `duration = "1.5s"`, Summary: "Invalid duration"},
		},
		Outputs: []benchtest.Output{
			{Client: "seed004-send128.txt"}, {Client: "seed004-send8k.txt"},
			{Client: "keyval-tcp-stream.txt"}, {Client: "keyval-tcp-rr.txt"},
		},
	})
}
