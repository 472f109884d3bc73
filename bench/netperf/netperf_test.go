package netperf_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/netperf"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/internal/golden"
)

func TestParseGolden(t *testing.T) {
	tests := []struct {
		name    string
		wantBps float64
		wantTPS float64
	}{
		{"seed004-send128", 426.17e6, 0},
		{"seed004-send8k", 913.71e6, 0},
		{"keyval-tcp-stream", 11540.09e6, 0},
		{"keyval-tcp-rr", 0, 2841.07},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := new(netperf.Runner).Parse(bench.Raw{Client: string(b)})
			if err != nil {
				t.Fatal(err)
			}
			if s.ThroughputBps != tt.wantBps || s.TransactionsPerSec != tt.wantTPS {
				t.Errorf("throughput %v b/s %v trans/s, want %v %v", s.ThroughputBps, s.TransactionsPerSec, tt.wantBps, tt.wantTPS)
			}
			js, _ := json.MarshalIndent(s, "", "  ")
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), string(js)+"\n")
		})
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "netperf: send_omni: connect_data_socket failed: Connection refused",
		"THROUGHPUT=12\nTHROUGHPUT_UNITS=furlongs", "THROUGHPUT=x\nTHROUGHPUT_UNITS=10^6bits/s"} {
		if _, err := new(netperf.Runner).Parse(bench.Raw{Client: in}); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestArgs(t *testing.T) {
	p := bench.Params{Duration: 10 * time.Second, Netperf: &bench.NetperfParams{Test: "TCP_STREAM", SendSize: "128",
		SendBuffer: "8K", RecvBuffer: "8K", Confidence: 10}}
	if err := netperf.Validate("198.18.0.1", p); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(netperf.ClientArgs("198.18.0.1", 12865, p), " ")
	want := "netperf -H 198.18.0.1 -p 12865 -t TCP_STREAM -l 10 -c -C -I 99,5 -i 10,3 -- -k " +
		strings.Join(netperf.Selectors, ",") + " -m 128 -s 8K -S 8K"
	if got != want {
		t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(netperf.ServerArgs(12865), " "); got != "netserver -D -p 12865" {
		t.Errorf("ServerArgs: %s", got)
	}
	for _, bad := range []bench.Params{
		{}, {Duration: time.Second, Netperf: &bench.NetperfParams{Test: "SCTP_STREAM"}},
		{Duration: time.Second, Netperf: &bench.NetperfParams{SendSize: "1;x"}},
		{Duration: time.Second, Netperf: &bench.NetperfParams{Test: "TCP_RR", RequestResponse: "1"}},
		{Duration: time.Second, Parallel: 2},
	} {
		if netperf.Validate("198.18.0.1", bad) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestMissingBinary: on a guest without netperf the run fails before
// anything starts, naming the guest and how to install it.
func TestMissingBinary(t *testing.T) {
	p := netnstest.NewPair(t)
	server := bench.Endpoint{T: netns.New("pair.t.server", p.A.NS, nil), Addr: p.A.Addr}
	client := bench.Endpoint{T: netns.New("pair.t.client", p.B.NS, nil), Addr: p.B.Addr}
	_, err := new(netperf.Runner).Run(context.Background(), server, client, bench.Params{Duration: time.Second})
	if _, lookErr := os.Stat("/usr/bin/netserver"); lookErr == nil {
		t.Skip("netserver is installed here")
	}
	if err == nil || !strings.Contains(err.Error(), "pair.t.server has no netserver: install netperf there") {
		t.Errorf("err = %v", err)
	}
}

// TestArgsIPv6: a run over IPv6 adds the global -6 to netperf (before
// the test-specific "--") and -6 to netserver, which otherwise listens on
// IPv4 only (netperf(1), netserver(1)); -H takes the bare literal.
func TestArgsIPv6(t *testing.T) {
	p := bench.Params{Duration: 10 * time.Second, IPVersion: bench.IPDual}
	if err := netperf.Validate("fd00:1ab::1", p); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(netperf.ClientArgs("fd00:1ab::1", 12865, p), " ")
	if want := "netperf -H fd00:1ab::1 -p 12865 -t TCP_STREAM -l 10 -c -C -6 -- -k " + strings.Join(netperf.Selectors, ","); got != want {
		t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(netperf.ServerArgv(12865, p), " "); got != "netserver -D -p 12865 -6" {
		t.Errorf("ServerArgv: %s", got)
	}
	if got := strings.Join(netperf.ServerArgv(12865, bench.Params{}), " "); got != "netserver -D -p 12865" {
		t.Errorf("IPv4 ServerArgv: %s", got)
	}
	if err := netperf.Validate("198.18.0.1", p); err == nil {
		t.Error("IPv4 server address accepted for an IPv6 run")
	}
}
