package sockperf_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/sockperf"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/internal/golden"
)

var record = flag.Bool("record", false, "re-record testdata/*.txt with real sockperf runs (root)")

// recordings are real sockperf runs between two namespaces on a veth pair
// (testdata/README.md).
var recordings = []struct {
	name string
	p    bench.Params
}{
	{"udp-ping-pong-64", bench.Params{Duration: 2 * time.Second, UDP: true, Length: "64"}},
	{"tcp-ping-pong-64", bench.Params{Duration: 2 * time.Second, Length: "64"}},
	{"udp-under-load-5000", bench.Params{Duration: 2 * time.Second, UDP: true, Length: "64",
		Sockperf: &bench.SockperfParams{Mode: "under-load", MPS: 5000}}},
	{"tcp-throughput-1472", bench.Params{Duration: 2 * time.Second, Length: "1472",
		Sockperf: &bench.SockperfParams{Mode: "throughput"}}},
}

// fixedCPU stands in for the sampled CPU in golden files.
var fixedCPU = bench.CPUUsage{CPUs: []int{0}, Busy: 50, User: 10, System: 30, SoftIRQ: 10}

func pair(t *testing.T) (server, client bench.Endpoint) {
	t.Helper()
	if _, err := exec.LookPath("sockperf"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("needs sockperf (.ci/run installs it)")
		}
		t.Skip("needs sockperf")
	}
	p := netnstest.NewPair(t)
	return bench.Endpoint{T: netns.New("pair.t.server", p.A.NS, nil), Addr: p.A.Addr},
		bench.Endpoint{T: netns.New("pair.t.client", p.B.NS, nil), Addr: p.B.Addr}
}

func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("-record not set")
	}
	server, client := pair(t)
	ctx := context.Background()
	for _, rec := range recordings {
		raw, err := new(sockperf.Runner).Run(ctx, server, client, rec.p)
		if err != nil {
			t.Fatalf("%s: %v\n%s", rec.name, err, raw.Client)
		}
		write(t, rec.name+".txt", raw.Client)
	}
	// A failed run: nothing serves the port. sockperf 3.7 exits 0 even
	// then; its output says so.
	res, err := client.T.Run(ctx, guest.Cmd{Argv: sockperf.ClientArgs(server.Addr, 5999,
		bench.Params{Duration: time.Second, UDP: true})})
	if !strings.Contains(string(res.Stdout), "No messages were received") {
		t.Fatalf("client to a closed port: %s %v", res.Stdout, err)
	}
	write(t, "fail-no-server.txt", string(res.Stdout))
}

func write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("testdata", name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseGolden(t *testing.T) {
	for _, rec := range recordings {
		t.Run(rec.name, func(t *testing.T) {
			raw := bench.Raw{Client: read(t, rec.name+".txt"), ServerCPU: fixedCPU, ClientCPU: fixedCPU}
			s, err := new(sockperf.Runner).Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(s.Version, "sockperf 3.7") {
				t.Errorf("version %q", s.Version)
			}
			if mode := rec.p.Sockperf; mode != nil && mode.Mode == "throughput" {
				if s.ThroughputBps <= 0 || s.Latency != nil {
					t.Errorf("throughput %v, latency %+v", s.ThroughputBps, s.Latency)
				}
			} else {
				l := s.Latency
				if l == nil || !(l.MinUs > 0 && l.MinUs <= l.P50Us && l.P50Us <= l.P90Us && l.P90Us <= l.P99Us && l.P99Us <= l.MaxUs) ||
					l.Count == 0 || l.ResolutionUs != 0 || s.TransactionsPerSec <= 0 {
					t.Errorf("latency %+v, %v trans/s", l, s.TransactionsPerSec)
				}
			}
			js, _ := json.MarshalIndent(s, "", "  ")
			golden.Check(t, filepath.Join("testdata", rec.name+".golden"), string(js)+"\n")
		})
	}
}

// TestParseWorkedExample: the lines of a sockperf 3.7 ping-pong run as
// printed with their colour codes, read field by field.
func TestParseWorkedExample(t *testing.T) {
	out := "sockperf: \x1b[2;35m== version #3.7-no.git == \x1b[0m\n" +
		"sockperf: [Valid Duration] RunTime=1.550 sec; SentMessages=35746; ReceivedMessages=35746\n" +
		"sockperf: \x1b[2;35m====> avg-rtt=21.659 (std-dev=160.226)\x1b[0m\n" +
		"sockperf: \x1b[2;35mTotal 35746 observations\x1b[0m; each percentile contains 357.46 observations\n" +
		"sockperf: ---> <MAX> observation = 13594.374\n" +
		"sockperf: ---> percentile 99.999 = 13594.374\n" +
		"sockperf: ---> percentile 99.000 =  120.500\n" +
		"sockperf: ---> percentile 90.000 =   30.250\n" +
		"sockperf: ---> percentile 50.000 =   15.125\n" +
		"sockperf: ---> <MIN> observation =    7.165\n"
	s, err := new(sockperf.Runner).Parse(bench.Raw{Client: out})
	if err != nil {
		t.Fatal(err)
	}
	want := bench.LatencySample{MinUs: 7.165, MeanUs: 21.659, P50Us: 15.125, P90Us: 30.25, P99Us: 120.5, MaxUs: 13594.374, StdevUs: 160.226, Count: 35746}
	if *s.Latency != want {
		t.Errorf("latency %+v\nwant    %+v", *s.Latency, want)
	}
	if tps := 35746 / 1.550; s.TransactionsPerSec != tps {
		t.Errorf("transactions/s %v, want %v", s.TransactionsPerSec, tps)
	}
	if s.Version != "sockperf 3.7-no.git" {
		t.Errorf("version %q", s.Version)
	}
}

func TestParseRejects(t *testing.T) {
	for name, in := range map[string]string{
		"empty":     "",
		"no server": read(t, "fail-no-server.txt"),
		// Without --full-rtt sockperf prints half the round trip.
		"one-way": "sockperf: ====> avg-latency=21.659 (std-dev=160.226)\nsockperf: Total 5 observations\nsockperf: ---> percentile 50.000 = 10.1\n",
		"cut":     "sockperf: ====> avg-rtt=21.659 (std-dev=160.226)\n",
		"garbage": "sockperf: Summary: BandWidth is x MBps (y Mbps)\n",
	} {
		if _, err := new(sockperf.Runner).Parse(bench.Raw{Client: in}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A TCP client with nothing listening (testdata/README.md): the error
	// sockperf printed (log_err, src/defs.h) is what the run failed with.
	_, err := new(sockperf.Runner).Parse(bench.Raw{Client: read(t, "fail-tcp-refused.txt")})
	if err == nil || err.Error() != "sockperf: Can`t connect socket (errno=111 Connection refused)" {
		t.Errorf("err = %v", err)
	}
}

func TestArgs(t *testing.T) {
	for _, tt := range []struct {
		p            bench.Params
		server, want string
	}{
		{bench.Params{Duration: 10 * time.Second, UDP: true, Length: "64"},
			"sockperf server -i 198.18.0.1 -p 11111", "sockperf ping-pong -i 198.18.0.1 -p 11111 -t 10 -m 64 --full-rtt"},
		{bench.Params{Duration: 5 * time.Second, Sockperf: &bench.SockperfParams{Mode: "under-load", MPS: 2000}},
			"sockperf server -i 198.18.0.1 -p 11111 --tcp", "sockperf under-load -i 198.18.0.1 -p 11111 -t 5 --tcp --mps 2000 --full-rtt"},
		{bench.Params{Duration: time.Second, Length: "1472", Sockperf: &bench.SockperfParams{Mode: "throughput"}},
			"sockperf server -i 198.18.0.1 -p 11111 --tcp", "sockperf throughput -i 198.18.0.1 -p 11111 -t 1 -m 1472 --tcp"},
	} {
		if err := sockperf.Validate("198.18.0.1", tt.p); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(sockperf.ServerArgs("198.18.0.1", 11111, tt.p), " "); got != tt.server {
			t.Errorf("ServerArgs:\n got %s\nwant %s", got, tt.server)
		}
		if got := strings.Join(sockperf.ClientArgs("198.18.0.1", 11111, tt.p), " "); got != tt.want {
			t.Errorf("ClientArgs:\n got %s\nwant %s", got, tt.want)
		}
	}
	for _, bad := range []bench.Params{
		{}, {Duration: time.Second, Sockperf: &bench.SockperfParams{Mode: "fast"}},
		{Duration: time.Second, Length: "13"}, {Duration: time.Second, Length: "1;x"},
		{Duration: time.Second, Sockperf: &bench.SockperfParams{MPS: 10}},
		{Duration: time.Second, Parallel: 2},
	} {
		if sockperf.Validate("198.18.0.1", bad) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if sockperf.Validate("198.18.0.1; reboot", bench.Params{Duration: time.Second}) == nil {
		t.Error("a server address with a shell command accepted")
	}
}

// TestUDPBoundCmd: the UDP check is each OS driver's ListenUDP.
func TestUDPBoundCmd(t *testing.T) {
	for os, want := range map[string]string{
		"linux":   "ss -Hlun sport = :11111",
		"freebsd": "sockstat -46l -P udp -p 11111",
	} {
		c, ok := sockperf.UDPBoundCmd(os, 11111)
		if got := strings.Join(c.Argv, " "); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", os, got, ok, want)
		}
	}
}

// TestRun runs sockperf for real between two namespaces, UDP and TCP: the
// UDP server is awaited by its bound socket, the TCP one by its listening
// one, and both runs parse into round-trip latencies.
func TestRun(t *testing.T) {
	server, client := pair(t)
	for _, p := range []bench.Params{
		{Duration: time.Second, UDP: true, Length: "64"},
		{Duration: time.Second, Length: "64"},
	} {
		raw, err := new(sockperf.Runner).Run(context.Background(), server, client, p)
		if err != nil {
			t.Fatalf("udp=%v: %v\n%s", p.UDP, err, raw.Client)
		}
		s, err := new(sockperf.Runner).Parse(raw)
		if err != nil {
			t.Fatalf("udp=%v: %v\n%s", p.UDP, err, raw.Client)
		}
		if s.Latency == nil || s.Latency.P50Us > s.Latency.P99Us || s.TransactionsPerSec <= 0 {
			t.Errorf("udp=%v: %+v", p.UDP, s)
		}
		if !strings.Contains(strings.Join(raw.ClientArgv, " "), "--full-rtt") {
			t.Errorf("client ran without --full-rtt: %v", raw.ClientArgv)
		}
	}
}
