package iperf2_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf2"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
)

// TestArgsIPv6: a run over IPv6 adds -V (iperf(1): "-V, --ipv6_domain Set
// the domain to IPv6") to both ends, after everything an IPv4 run has;
// loopback becomes ::1; an IPv4 server address is refused.
func TestArgsIPv6(t *testing.T) {
	p := bench.Params{Duration: 10 * time.Second, Enhanced: true, Bind: "fd00:1ab::2", IPVersion: bench.IPv6}
	if err := iperf2.Validate("fd00:1ab::1", p); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(iperf2.ClientArgs("fd00:1ab::1", 5001, p), " "), "iperf -B fd00:1ab::2 -c fd00:1ab::1 -p 5001 -t 10 -e -V"; got != want {
		t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(iperf2.ServerArgv("fd00:1ab::1", 5001, p), " "), "iperf -s -p 5001 -B fd00:1ab::1 -e -V"; got != want {
		t.Errorf("ServerArgv:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(iperf2.ServerArgv("198.18.0.1", 5001, bench.Params{}), " "); got != "iperf -s -p 5001 -B 198.18.0.1 -e" {
		t.Errorf("IPv4 ServerArgv: %s", got)
	}
	if err := iperf2.Validate("198.18.0.1", p); err == nil || !strings.Contains(err.Error(), "is IPv4") {
		t.Errorf("IPv4 server address for an IPv6 run: %v", err)
	}
	if err := iperf2.Validate("fd00:1ab::1", bench.Params{Duration: time.Second, Bind: "198.18.0.2", IPVersion: bench.IPv6}); err == nil {
		t.Error("IPv4 bind address accepted for an IPv6 run")
	}
	if got := p.LoopbackAddr(); got != "::1" {
		t.Errorf("IPv6 loopback %q", got)
	}
}

// TestRunRealIPv6 runs iperf 2 over IPv6 between two namespaces and in
// loopback mode (::1) on the server end.
func TestRunRealIPv6(t *testing.T) {
	if _, err := exec.LookPath("iperf"); err != nil {
		t.Skip("needs iperf (iperf 2)")
	}
	np := netnstest.NewPair(t)
	np.AddIPv6(t)
	server := bench.Endpoint{T: netns.New("pair.t.server", np.A.NS, nil), Addr: np.A.Addr6}
	client := bench.Endpoint{T: netns.New("pair.t.client", np.B.NS, nil), Addr: np.B.Addr6}
	r := &iperf2.Runner{}
	for _, p := range []bench.Params{
		{Duration: time.Second, Enhanced: true, IPVersion: bench.IPv6},
		{Duration: time.Second, Enhanced: true, Loopback: true, IPVersion: bench.IPDual},
	} {
		raw, err := r.Run(context.Background(), server, client, p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if s.ThroughputBps <= 0 {
			t.Errorf("%+v: throughput %v", p, s.ThroughputBps)
		}
		want := np.A.Addr6
		if p.Loopback {
			want = "::1"
		}
		if !strings.Contains(raw.Client, want) {
			t.Errorf("%+v: client output does not name %s: %.400s", p, want, raw.Client)
		}
	}
}
