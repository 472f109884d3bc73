package iperf3_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf3"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
)

// TestArgsIPv6: a run over IPv6 adds -6 to both ends (iperf3(1): "-6,
// --version6 only use IPv6") after everything an IPv4 run has, with the
// bare literal after -c and -B; an IPv4 server address is refused.
func TestArgsIPv6(t *testing.T) {
	for _, v := range []string{bench.IPv6, bench.IPDual} {
		p := bench.Params{Duration: 10 * time.Second, IPVersion: v}
		if err := iperf3.Validate("fd00:1ab::1", p); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(iperf3.ClientArgs("fd00:1ab::1", 5201, p), " "), "iperf3 -c fd00:1ab::1 -p 5201 -J -t 10 -P 1 -6"; got != want {
			t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
		}
		if got, want := strings.Join(iperf3.ServerArgv("fd00:1ab::1", 5201, p), " "), "iperf3 -s -1 -p 5201 -B fd00:1ab::1 -J -6"; got != want {
			t.Errorf("ServerArgv:\n got %s\nwant %s", got, want)
		}
		if err := iperf3.Validate("198.18.0.1", p); err == nil || !strings.Contains(err.Error(), "is IPv4") {
			t.Errorf("IPv4 server address for an IPv6 run: %v", err)
		}
	}
	if got := strings.Join(iperf3.ServerArgv("198.18.0.1", 5201, bench.Params{}), " "); got != "iperf3 -s -1 -p 5201 -B 198.18.0.1 -J" {
		t.Errorf("IPv4 ServerArgv: %s", got)
	}
}

// TestRunRealIPv6 runs iperf3 over IPv6 between two namespaces: the JSON
// names the IPv6 server address and the throughput is positive.
func TestRunRealIPv6(t *testing.T) {
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3")
	}
	np := netnstest.NewPair(t)
	np.AddIPv6(t)
	server := bench.Endpoint{T: netns.New("pair.t.server", np.A.NS, nil), Addr: np.A.Addr6}
	client := bench.Endpoint{T: netns.New("pair.t.client", np.B.NS, nil), Addr: np.B.Addr6}
	r := &iperf3.Runner{}
	raw, err := r.Run(context.Background(), server, client, bench.Params{Duration: time.Second, IPVersion: bench.IPv6})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if s.ThroughputBps <= 0 {
		t.Errorf("throughput %v", s.ThroughputBps)
	}
	var out struct {
		Start struct {
			Connected []struct {
				Local  string `json:"local_host"`
				Remote string `json:"remote_host"`
			} `json:"connected"`
		} `json:"start"`
	}
	if err := json.Unmarshal([]byte(raw.Client), &out); err != nil || len(out.Start.Connected) == 0 ||
		out.Start.Connected[0].Remote != np.A.Addr6 || out.Start.Connected[0].Local != np.B.Addr6 {
		t.Errorf("client JSON's connection %+v (%v), want %s -> %s", out.Start.Connected, err, np.B.Addr6, np.A.Addr6)
	}
}
