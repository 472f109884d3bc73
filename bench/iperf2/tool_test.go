package iperf2_test

import (
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/benchtest"
)

// TestConformance runs the tools' conformance suite on iperf 2.
func TestConformance(t *testing.T) {
	benchtest.Conformance(t, benchtest.Harness{
		Tool: "iperf2",
		Valid: `duration           = "5s"
interval           = "2s"
length             = "1M"
parallel           = 2
congestion_control = "reno"
bind               = "198.18.0.2"
port               = 5001`,
		Want: bench.Params{Tool: "iperf2", Duration: 5 * time.Second, Interval: 2 * time.Second, Parallel: 2,
			Enhanced: true, Length: "1M", CongestionControl: "reno", Bind: "198.18.0.2", Port: 5001},
		Invalid: []benchtest.Refusal{
			{Body: "dualtest = true\ntradeoff = true", Summary: "Conflicting iperf2 modes"},
			{Body: "bounceback = true\nparallel = 2", Summary: "Conflicting iperf2 modes"},
			{Body: `bind = "1.2.3.4; reboot"`, Summary: "Invalid bind address"},
			{Body: `length = "0"`, Summary: "Invalid buffer length"},
			{Body: `parallel = 0`, Summary: "Invalid parallel"},
			{Body: `congestion_control = "BBR!"`, Summary: "Invalid congestion control"},
		},
		Outputs: []benchtest.Output{
			{Client: "real-plain.txt", Version: "iperf version 2.1.8"},
			{Client: "real-bounceback.txt", Version: "iperf version 2.1.8"},
			{Client: "seed001-loopback.txt"}, {Client: "seed003-lan-base.txt"},
		},
	})
}
