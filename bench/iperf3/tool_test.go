package iperf3_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/benchtest"
	"github.com/lab-bench/lab/bench/iperf3"
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
			{Body: `length = "0"`, Summary: "Invalid buffer length"},
			{Body: `udp = "maybe"`, Summary: "Incorrect attribute value type"},
			{Body: `port = 70000`, Summary: "Invalid port"},
			{Body: `window = "lots"`, Summary: "Invalid window"},
			{Body: `dscp = "gold"`, Summary: "Invalid DSCP"},
			{Body: `dscp = "64"`, Summary: "Invalid DSCP"},
			{Body: `fq_rate = "fast"`, Summary: "Invalid fq_rate"},
			{Body: `mss = 40`, Summary: "Invalid mss"},
			{Body: "bidir = true\nreverse = true", Summary: "Conflicting directions"},
			{Body: "udp = true\nno_delay = true", Summary: "TCP option on a UDP benchmark"},
		},
		Outputs: []benchtest.Output{
			{Client: "tcp-bidir.json", Server: "tcp-bidir.server.json"},
			{Client: "tcp-p1.json", Server: "tcp-p1.server.json"},
			{Client: "tcp-p3.json", Server: "tcp-p3.server.json"},
			{Client: "udp-100m.json", Server: "udp-100m.server.json"},
		},
	})
}

// iperf3's own options reach the client's command line as iperf3 --help
// (3.12) spells them; the real run in testdata/tcp-bidir.json took them
// (its test_start says tos 40: af11).
func TestOwnOptionsReachTheCommandLine(t *testing.T) {
	p := bench.Params{Duration: time.Second, Iperf3: &bench.Iperf3Params{Window: "256K", MSS: 1400, NoDelay: true,
		ZeroCopy: true, DSCP: "ef", FQRate: "1G", Bidir: true}}
	if err := iperf3.Validate("198.18.0.1", p); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(iperf3.ClientArgs("198.18.0.1", 5201, p), " ")
	want := "iperf3 -c 198.18.0.1 -p 5201 -J -t 1 -P 1 -w 256K -M 1400 -N -Z --dscp ef --fq-rate 1G --bidir"
	if got != want {
		t.Errorf("client argv\n got %s\nwant %s", got, want)
	}
	p.Reverse = true
	if err := iperf3.Validate("198.18.0.1", p); err == nil || !strings.Contains(err.Error(), "cannot be both reverse and bidirectional") {
		t.Errorf("reverse with bidir: %v", err)
	}
}
