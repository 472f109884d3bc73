package iperf3_test

import (
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/benchtest"
)

// TestConformance runs the tools' conformance suite on iperf3.
func TestConformance(t *testing.T) {
	benchtest.Conformance(t, benchtest.Harness{
		Tool: "iperf3",
		Valid: `duration           = "5s"
omit               = "1s"
parallel           = 4
reverse            = true
length             = "128K"
congestion_control = "bbr"
port               = 5201`,
		Want: bench.Params{Tool: "iperf3", Duration: 5 * time.Second, Omit: time.Second, Parallel: 4, Reverse: true,
			Length: "128K", CongestionControl: "bbr", Port: 5201},
		Invalid: []benchtest.Refusal{
			{Body: `bitrate = "fast"`, Summary: "Invalid bitrate"},
			{Body: `duration = "0s"`, Summary: "Invalid duration"},
			{Body: `length = "0"`, Summary: "Invalid buffer length"},
			{Body: `udp = "maybe"`, Summary: "Incorrect attribute value type"},
			{Body: `port = 70000`, Summary: "Invalid port"},
		},
		Outputs: []benchtest.Output{
			{Client: "tcp-p1.json", Server: "tcp-p1.server.json"},
			{Client: "tcp-p3.json", Server: "tcp-p3.server.json"},
			{Client: "udp-100m.json", Server: "udp-100m.server.json"},
		},
	})
}
