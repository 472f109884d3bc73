package iperf2_test

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf2"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/internal/golden"
)

var (
	record = flag.Bool("record", false, "re-record testdata/real-*.txt with real iperf 2 runs (root)")
	only   = flag.String("record-only", "", "with -record: re-record only the recordings whose name starts with this")
)

// recordings are real iperf 2.1.8 runs between two namespaces on a veth
// pair (go test -record).
var recordings = []struct {
	name string
	p    bench.Params
}{
	{"real-l1m-e-cubic", bench.Params{Duration: 2 * time.Second, Interval: time.Second, Length: "1M", Enhanced: true, CongestionControl: "cubic"}},
	{"real-p2-e", bench.Params{Duration: 2 * time.Second, Interval: time.Second, Parallel: 2, Enhanced: true}},
	{"real-dualtest-e", bench.Params{Duration: time.Second, Interval: time.Second, Dualtest: true, Enhanced: true}},
	{"real-tradeoff-e", bench.Params{Duration: time.Second, Interval: time.Second, Tradeoff: true, Enhanced: true}},
	{"real-plain", bench.Params{Duration: time.Second}},
	// iperf -c … -t 2 -i 1 -e --bounceback --bounceback-period 0 (100-byte requests)
	{"real-bounceback", bench.Params{Duration: 2 * time.Second, Interval: time.Second, Enhanced: true, Bounceback: true}},
	// … -l 1K: 1 KiB requests and replies
	{"real-bounceback-1k", bench.Params{Duration: 2 * time.Second, Interval: time.Second, Length: "1K", Enhanced: true, Bounceback: true}},
}

// seeds are the published outputs copied from the seed posts (each file's
// first line names its seed) with the throughput the post reports.
var seeds = []struct {
	name     string
	wantBps  float64
	wantCC   string
	interval int
}{
	{"seed003-lan-base", 940e6, "", 10},
	{"seed003-loss-base", 193e6, "", 10},
	{"seed003-loss-newreno", 918e6, "", 10},
	{"seed003-emulab-newreno", 783e6, "newreno", 10},
	{"seed001-loopback", 53.4e9, "", 0},
	{"seed001-jumbo", 9.89e9, "", 0},
}

var fixedCPU = bench.CPUUsage{CPUs: []int{0}, Busy: 50, User: 10, System: 30, SoftIRQ: 10, MHz: 2400, NumCPUs: 1}

func TestParseSeeds(t *testing.T) {
	for _, sd := range seeds {
		t.Run(sd.name, func(t *testing.T) {
			s, err := new(iperf2.Runner).Parse(bench.Raw{Client: read(t, sd.name+".txt")})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, sd.name, s)
			if s.ThroughputBps != sd.wantBps || s.CongestionControl != sd.wantCC || len(s.IntervalsBps) != sd.interval {
				t.Errorf("got %v b/s cc %q %d intervals, want %v %q %d", s.ThroughputBps, s.CongestionControl,
					len(s.IntervalsBps), sd.wantBps, sd.wantCC, sd.interval)
			}
		})
	}
}

func TestParseRecorded(t *testing.T) {
	for _, rec := range recordings {
		t.Run(rec.name, func(t *testing.T) {
			raw := bench.Raw{Client: read(t, rec.name+".txt"), ServerCPU: fixedCPU, ClientCPU: fixedCPU, Version: "iperf version 2.1.8"}
			s, err := new(iperf2.Runner).Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, rec.name, s)
			p := rec.p
			if n := max(1, p.Parallel); len(s.Streams) != n {
				t.Errorf("%d streams, want %d", len(s.Streams), n)
			}
			if (p.Dualtest || p.Tradeoff) != (s.ReverseBps > 0) {
				t.Errorf("reverse %v with dualtest %v tradeoff %v", s.ReverseBps, p.Dualtest, p.Tradeoff)
			}
			for i := 1; i < len(s.Intervals); i++ {
				if a, b := s.Intervals[i-1], s.Intervals[i]; math.Abs(a.End-b.Start) > 1e-3 || b.End <= b.Start || b.Bps <= 0 {
					t.Errorf("intervals %d and %d not a time series: %+v %+v", i-1, i, a, b)
				}
			}
			if p.Interval > 0 && p.Parallel <= 1 && !p.Dualtest && !p.Tradeoff && len(s.Intervals) != int(p.Duration/p.Interval) {
				t.Errorf("%d intervals in %v at %v", len(s.Intervals), p.Duration, p.Interval)
			}
			if p.Bounceback {
				checkBounceback(t, read(t, rec.name+".txt"), s)
			} else if p.Enhanced && (s.Streams[0].Writes == 0 || s.Streams[0].RTTMicros == 0 || s.Streams[0].CwndBytes == 0 || s.MSS == 0) {
				t.Errorf("enhanced columns missing: %+v", s.Streams[0])
			}
			if p.CongestionControl != "" && s.CongestionControl != p.CongestionControl {
				t.Errorf("cc %q", s.CongestionControl)
			}
			var sum float64
			for _, st := range s.Streams {
				sum += st.ThroughputBps
			}
			if math.Abs(sum/s.ThroughputBps-1) > 0.02 {
				t.Errorf("streams sum to %.3g, total %.3g", sum, s.ThroughputBps)
			}
		})
	}
}

// TestHistogramRejects: a PDF line whose bins do not add up to its count,
// or that is cut short, gives no histogram (and no quantiles), and an
// empty histogram has no quantile bin rather than a panic.
func TestHistogramRejects(t *testing.T) {
	for _, line := range []string{
		"[  1] 0.0000-2.0116 sec BB8(f)-PDF: bin(w=100us):cnt(20)=1:18,5:1 (5.00/95.00/99.7%=1/5/5,Outliers=0,obl/obu=0/0)",
		"[  1] 0.0000-2.0116 sec BB8(f)-PDF: bin(w=100us):cnt(20)=1:19,5:",
		"[  1] 0.0000-2.0116 sec BB8(f)-PDF: bin(w=0us):cnt(1)=1:1 (5.00/95.00/99.7%=1/1/1,Outliers=0,obl/obu=0/0)",
	} {
		if out := iperf2.ParseOutput(line + "\n"); out.Histogram != nil {
			t.Errorf("accepted %q: %+v", line, out.Histogram)
		}
	}
	if b := new(iperf2.Histogram).QuantileBin(0.5); b != 0 {
		t.Errorf("empty histogram: bin %d", b)
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "tcp connect failed: Connection refused",
		"[  1] local 0.0.0.0 port 0 connected with 198.18.0.1 port 5302 (sock=3)\n"} {
		if _, err := new(iperf2.Runner).Parse(bench.Raw{Client: in}); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestArgs(t *testing.T) {
	p := bench.Params{Duration: 10 * time.Second, Interval: time.Second, Length: "1M", Enhanced: true, Parallel: 2,
		Dualtest: true, CongestionControl: "reno", Bind: "198.18.0.2"}
	if err := iperf2.Validate("198.18.0.1", p); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(iperf2.ClientArgs("198.18.0.1", 5001, p), " ")
	if want := "iperf -B 198.18.0.2 -c 198.18.0.1 -p 5001 -l 1M -t 10 -i 1 -e -P 2 -d -Z reno"; got != want {
		t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
	}
	bb := bench.Params{Duration: 2 * time.Second, Length: "1K", Bounceback: true}
	if got := strings.Join(iperf2.ClientArgs("198.18.0.1", 5001, bb), " "); got != "iperf -c 198.18.0.1 -p 5001 -l 1K -t 2 -e --bounceback --bounceback-period 0" {
		t.Errorf("bounceback ClientArgs: %s", got)
	}
	if got := strings.Join(iperf2.ServerArgs("198.18.0.1", 5001), " "); got != "iperf -s -p 5001 -B 198.18.0.1 -e" {
		t.Errorf("ServerArgs: %s", got)
	}
	for _, bad := range []bench.Params{
		{}, {Duration: 1500 * time.Millisecond}, {Duration: time.Second, Parallel: 129}, {Duration: time.Second, Length: "1;x"},
		{Duration: time.Second, CongestionControl: "a b"}, {Duration: time.Second, Dualtest: true, Tradeoff: true},
		{Duration: time.Second, UDP: true}, {Duration: time.Second, Bind: "x"},
		{Duration: time.Second, Bounceback: true, Parallel: 2}, {Duration: time.Second, Bounceback: true, Dualtest: true},
	} {
		if iperf2.Validate("198.18.0.1", bad) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func pair(t *testing.T) (server, client bench.Endpoint) {
	t.Helper()
	if _, err := exec.LookPath("iperf"); err != nil {
		t.Skip("needs iperf (iperf 2)")
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
	for _, rec := range recordings {
		if !strings.HasPrefix(rec.name, *only) {
			continue
		}
		raw, err := new(iperf2.Runner).Run(context.Background(), server, client, rec.p)
		if err != nil {
			t.Fatalf("%s: %v", rec.name, err)
		}
		write(t, rec.name+".txt", raw.Client)
	}
}

// TestRunReal runs iperf 2 for real between two namespaces, and in
// loopback mode on the server end only.
func TestRunReal(t *testing.T) {
	server, client := pair(t)
	r := &iperf2.Runner{}
	for _, p := range []bench.Params{
		{Duration: time.Second, Interval: time.Second, Length: "1M", Enhanced: true, CongestionControl: "cubic"},
		{Duration: time.Second, Enhanced: true, Parallel: 2},
		{Duration: time.Second, Enhanced: true, Loopback: true},
	} {
		raw, err := r.Run(context.Background(), server, client, p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %.2f Gb/s, server cpu %.0f%% @ %.0f MHz x %d, client cpu %.0f%%", p, s.ThroughputBps/1e9,
			s.ServerCPU.Busy, s.ServerCPU.MHz, s.ServerCPU.NumCPUs, s.ClientCPU.Busy)
		if s.ThroughputBps <= 0 || s.ServerCPU.Busy <= 0 || !strings.HasPrefix(s.Version, "iperf version 2") {
			t.Errorf("sample %+v", s)
		}
		if p.Loopback != strings.Contains(raw.Client, "127.0.0.1") {
			t.Errorf("loopback %v but client output: %.300s", p.Loopback, raw.Client)
		}
		if !strings.Contains(raw.Server, "Server listening") {
			t.Errorf("server output not kept: %.200s", raw.Server)
		}
		if srv, cli := strings.Join(raw.ServerArgv, " "), strings.Join(raw.ClientArgv, " "); !strings.Contains(srv, "iperf -s -p ") || !strings.Contains(cli, " -c ") {
			t.Errorf("argv: server %q, client %q", srv, cli)
		}
	}
}

// TestRunErrors: a refused connection (iperf 2 exits 0) and a congestion
// control that cannot be set (a warning on stderr only) both fail the run.
func TestRunErrors(t *testing.T) {
	server, client := pair(t)
	ctx := context.Background()
	if _, err := server.T.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-A", "INPUT", "-p", "tcp", "--dport", "5990",
		"-j", "REJECT", "--reject-with", "tcp-reset"}}); err != nil {
		t.Fatal(err)
	}
	_, err := new(iperf2.Runner).Run(ctx, server, client, bench.Params{Duration: time.Second, Port: 5990})
	if err == nil || !strings.Contains(err.Error(), "pair.t.client: iperf -c 198.18.0.1 -p 5990") ||
		!strings.Contains(err.Error(), "Connection refused") {
		t.Errorf("refused: %v", err)
	}
	_, err = new(iperf2.Runner).Run(ctx, server, client, bench.Params{Duration: time.Second, CongestionControl: "nosuchcc"})
	if err == nil || !strings.Contains(err.Error(), "congestion control nosuchcc not in effect") {
		t.Errorf("bad cc: %v", err)
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

func write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join("testdata", name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkGolden compares s, as JSON, with testdata/NAME.golden.
func checkGolden(t *testing.T, name string, s bench.Sample) {
	t.Helper()
	js, _ := json.MarshalIndent(s, "", "  ")
	golden.Check(t, filepath.Join("testdata", name+".golden"), string(js)+"\n")
}

// checkBounceback states what the golden file alone would not: the
// quantiles are ordered and within the measured range, the quantile rule
// finds the same bins iperf printed for 5 %, 95 % and 99.7 %, and
// transactions/s is the round-trip count over the duration.
func checkBounceback(t *testing.T, text string, s bench.Sample) {
	t.Helper()
	l := s.Latency
	if l == nil {
		t.Fatal("bounceback without latency")
	}
	if !(l.MinUs > 0 && l.MinUs <= l.MeanUs && l.MeanUs <= l.MaxUs) {
		t.Errorf("min/mean/max %v/%v/%v", l.MinUs, l.MeanUs, l.MaxUs)
	}
	if !(l.P50Us > 0 && l.P50Us <= l.P90Us && l.P90Us <= l.P99Us && l.P99Us <= l.MaxUs) || l.ResolutionUs != 100 {
		t.Errorf("p50/p90/p99 %v/%v/%v max %v resolution %v", l.P50Us, l.P90Us, l.P99Us, l.MaxUs, l.ResolutionUs)
	}
	h := iperf2.ParseOutput(text).Histogram
	if h == nil {
		t.Fatal("no histogram")
	}
	for i, q := range []float64{0.05, 0.95, 0.997} {
		if got := h.QuantileBin(q); got != h.Printed[i] {
			t.Errorf("quantile %v: bin %d, iperf printed %d", q, got, h.Printed[i])
		}
	}
	if l.Count != h.Total {
		t.Errorf("count %d, histogram total %d", l.Count, h.Total)
	}
	if s.TransactionsPerSec < float64(l.Count)/3 || s.TransactionsPerSec > float64(l.Count)/2 {
		t.Errorf("%v transactions/s for %d round trips in about 2 s", s.TransactionsPerSec, l.Count)
	}
}
