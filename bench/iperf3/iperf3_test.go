package iperf3_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf3"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/internal/golden"
)

var (
	record = flag.Bool("record", false, "re-record testdata/*.json with real iperf3 runs (root)")
	only   = flag.String("record-only", "", "with -record: re-record only this recording")
)

// recordings are real iperf3 runs between two namespaces on a veth pair.
var recordings = []struct {
	name string
	p    bench.Params
}{
	{"tcp-p1", bench.Params{Duration: time.Second}},
	{"tcp-p3", bench.Params{Duration: time.Second, Parallel: 3}},
	{"tcp-reverse", bench.Params{Duration: time.Second, Reverse: true}},
	{"udp-100m", bench.Params{Duration: time.Second, UDP: true, Bitrate: "100M"}},
	// A 3 s run with a 1 s omit period: a time series of 4 intervals.
	{"tcp-3s-omit", bench.Params{Duration: 3 * time.Second, Omit: time.Second}},
	// A rate above what one pinned receiver takes on this 2-core host:
	// iperf3 reports lost datagrams.
	{"udp-4g-loss", bench.Params{Duration: 2 * time.Second, UDP: true, Bitrate: "4G", Length: "1400"}},
	// Both directions at once, with iperf3's own socket options.
	{"tcp-bidir", bench.Params{Duration: time.Second, Iperf3: &bench.Iperf3Params{Bidir: true, Window: "256K", NoDelay: true, DSCP: "af11"}}},
}

// fixedCPU stands in for the sampled CPU in golden files.
var fixedCPU = bench.CPUUsage{CPUs: []int{0}, Busy: 50, User: 10, System: 30, SoftIRQ: 10}

func pair(t *testing.T) (server, client bench.Endpoint) {
	t.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3")
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
		if *only != "" && rec.name != *only {
			continue
		}
		raw, err := new(iperf3.Runner).Run(ctx, server, client, rec.p)
		if err != nil {
			t.Fatalf("%s: %v", rec.name, err)
		}
		write(t, rec.name+".json", raw.Client)
		write(t, rec.name+".server.json", raw.Server)
	}
	if *only != "" {
		return
	}
	// A failed run: nothing listens on the port.
	// iperf3 3.12 exits 0 even then; the JSON carries the error.
	res, err := client.T.Run(ctx, guest.Cmd{Argv: iperf3.ClientArgs(server.Addr, 5999, bench.Params{Duration: time.Second})})
	if !strings.Contains(string(res.Stdout), "unable to connect") {
		t.Fatalf("client to a closed port: %s %v", res.Stdout, err)
	}
	write(t, "fail-connect.json", string(res.Stdout))
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
			raw := bench.Raw{Client: read(t, rec.name+".json"), Server: read(t, rec.name+".server.json"),
				ServerCPU: fixedCPU, ClientCPU: fixedCPU}
			s, err := new(iperf3.Runner).Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.MarshalIndent(s, "", "  ")
			golden.Check(t, filepath.Join("testdata", rec.name+".golden"), string(js)+"\n")
			checkSample(t, rec.p, s)
		})
	}
	t.Run("fail-connect", func(t *testing.T) {
		_, err := new(iperf3.Runner).Parse(bench.Raw{Client: read(t, "fail-connect.json")})
		if err == nil || !strings.Contains(err.Error(), "unable to connect to server") {
			t.Errorf("err = %v", err)
		}
		golden.Check(t, filepath.Join("testdata", "fail-connect.golden"), err.Error()+"\n")
	})
}

// checkSample states what golden files alone would not make obvious.
func checkSample(t *testing.T, p bench.Params, s bench.Sample) {
	t.Helper()
	if s.ThroughputBps <= 0 || s.SenderBps <= 0 || s.Version != "iperf 3.12" && s.Version == "" {
		t.Errorf("sample %+v", s)
	}
	if n := max(1, p.Parallel); len(s.Streams) != n {
		t.Errorf("%d streams, want %d", len(s.Streams), n)
	}
	var sum float64
	for _, st := range s.Streams {
		sum += st.ThroughputBps
	}
	if d := sum/s.ThroughputBps - 1; !p.UDP && (d > 0.01 || d < -0.01) {
		t.Errorf("streams sum to %.0f, total %.0f", sum, s.ThroughputBps)
	}
	if p.UDP && (s.JitterMs <= 0 || s.MSS != 0) {
		t.Errorf("UDP sample: jitter %v mss %d", s.JitterMs, s.MSS)
	}
	checkIntervals(t, p, s)
	if bidir := p.Iperf3 != nil && p.Iperf3.Bidir; bidir != (s.ReverseBps > 0) {
		t.Errorf("bidir %v, reverse direction %v b/s", bidir, s.ReverseBps)
	}
	if p.UDP {
		if s.Packets <= 0 || s.PacketsPerSec <= 0 {
			t.Errorf("UDP sample: %d packets, %v packets/s", s.Packets, s.PacketsPerSec)
		}
		if want := 100 * float64(s.LostPackets) / float64(s.Packets); math.Abs(s.LossPct-want) > 0.01 {
			t.Errorf("UDP loss %v %%, but %d of %d packets lost", s.LossPct, s.LostPackets, s.Packets)
		}
		if strings.Contains(t.Name(), "loss") && s.LostPackets == 0 {
			t.Errorf("the loss recording lost nothing")
		}
	}
	if !p.UDP && s.MSS == 0 {
		t.Errorf("TCP sample without MSS")
	}
}

// TestReverseSwapsCPU: with -R the client receives, so iperf3's host CPU
// is the receiver's.
func TestReverseSwapsCPU(t *testing.T) {
	var rep struct {
		End struct {
			CPU struct {
				HostTotal float64 `json:"host_total"`
			} `json:"cpu_utilization_percent"`
		} `json:"end"`
	}
	for name, host := range map[string]func(bench.Sample) float64{
		"tcp-p1":      func(s bench.Sample) float64 { return s.ToolCPUSender },
		"tcp-reverse": func(s bench.Sample) float64 { return s.ToolCPUReceiver },
	} {
		js := read(t, name+".json")
		if err := json.Unmarshal([]byte(js), &rep); err != nil {
			t.Fatal(err)
		}
		s, err := new(iperf3.Runner).Parse(bench.Raw{Client: js})
		if err != nil {
			t.Fatal(err)
		}
		if host(s) != rep.End.CPU.HostTotal {
			t.Errorf("%s: host_total %v not where expected: %+v", name, rep.End.CPU.HostTotal, s)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "not json", `{"start":{}}`, `{"error":"interrupt - the server has terminated"}`} {
		if _, err := new(iperf3.Runner).Parse(bench.Raw{Client: in}); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestRunReal runs a 2 s test between two namespaces, pinned to CPU 0
// (server) and 1 (client) when the machine has two CPUs.
func TestRunReal(t *testing.T) {
	server, client := pair(t)
	server.CPUs, client.CPUs = []int{0}, []int{1}
	if n, _ := os.ReadFile("/sys/devices/system/cpu/online"); strings.TrimSpace(string(n)) == "0" {
		server.CPUs, client.CPUs = nil, nil
	}
	r := &iperf3.Runner{}
	raw, err := r.Run(context.Background(), server, client, bench.Params{Duration: 2 * time.Second, Omit: time.Second, Parallel: 2, CongestionControl: "cubic"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.2f Gb/s, server cpu %+v, client cpu %+v, %v", s.ThroughputBps/1e9, s.ServerCPU, s.ClientCPU, raw.End.Sub(raw.Start))
	if s.ThroughputBps <= 0 || s.ServerCPU.Busy <= 0 || s.ClientCPU.Busy <= 0 || len(s.Streams) != 2 {
		t.Errorf("sample %+v", s)
	}
	if d := raw.End.Sub(raw.Start); d < 3*time.Second {
		t.Errorf("run took %v, want >= omit + duration", d)
	}
	if !strings.Contains(raw.Client, `"sender_tcp_congestion":	"cubic"`) && !strings.Contains(raw.Client, `"sender_tcp_congestion": "cubic"`) {
		t.Errorf("-C cubic not in effect")
	}
	if !strings.Contains(raw.Server, `"end"`) {
		t.Errorf("no server JSON: %.200s", raw.Server)
	}
	// The command lines are kept beside the outputs (issue 25 §2).
	srv, cli := strings.Join(raw.ServerArgv, " "), strings.Join(raw.ClientArgv, " ")
	if !strings.Contains(srv, "iperf3 -s -1 -p ") || !strings.Contains(cli, "iperf3 -c "+server.Addr+" -p ") || !strings.Contains(cli, "-C cubic") {
		t.Errorf("argv: server %q, client %q", srv, cli)
	}
}

// TestRunErrors: a server that cannot start and a client that cannot
// connect both name the guest, the command and iperf3's own message.
func TestRunErrors(t *testing.T) {
	server, client := pair(t)
	ctx := context.Background()
	// Bind to an address the server does not have.
	bad := server
	bad.Addr = "198.18.9.9"
	_, err := new(iperf3.Runner).Run(ctx, bad, client, bench.Params{Duration: time.Second})
	var ce *guest.CommandError
	if !errors.As(err, &ce) || ce.Guest != "pair.t.server" || !strings.Contains(err.Error(), "iperf3 -s") ||
		!strings.Contains(err.Error(), "unable to start listener") {
		t.Errorf("bind failure: %v", err)
	}
	// The server listens but the client's connection is refused; iperf3
	// 3.12's client then exits 0 with the error in its JSON only.
	const port = 5990
	if _, err := server.T.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-A", "INPUT", "-p", "tcp", "--dport", "5990",
		"-j", "REJECT", "--reject-with", "tcp-reset"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = new(iperf3.Runner).Run(ctx, server, client, bench.Params{Duration: time.Second, Port: port})
	if err == nil || !strings.Contains(err.Error(), "pair.t.client: iperf3 -c 198.18.0.1 -p 5990") ||
		!strings.Contains(err.Error(), "iperf3: unable to connect to server: Connection refused") {
		t.Errorf("refused connection: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("failed run took %v: server not cancelled?", d)
	}
	// Invalid parameters never reach a command.
	if _, err := new(iperf3.Runner).Run(ctx, server, client, bench.Params{Duration: 1500 * time.Millisecond, Length: "1;x"}); err == nil {
		t.Error("invalid params accepted")
	}
	v, err := iperf3.Version(ctx, client.T)
	if err != nil || !strings.HasPrefix(v, "iperf 3.") {
		t.Errorf("Version: %q %v", v, err)
	}
}

// TestConcurrentRuns: two runs on the same pair at once get distinct ports.
func TestConcurrentRuns(t *testing.T) {
	server, client := pair(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := new(iperf3.Runner).Run(context.Background(), server, client, bench.Params{Duration: time.Second})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestArgs(t *testing.T) {
	p := bench.Params{Duration: 30 * time.Second, Omit: 2 * time.Second, Parallel: 3, Reverse: true, Length: "128K",
		UDP: true, Bitrate: "1G", CongestionControl: "cubic"}
	if err := iperf3.Validate("198.18.0.1", p); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(iperf3.ClientArgs("198.18.0.1", 5201, p), " ")
	want := "iperf3 -c 198.18.0.1 -p 5201 -J -t 30 --omit 2 -P 3 -R -l 128K -u -b 1G -C cubic"
	if got != want {
		t.Errorf("ClientArgs:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(iperf3.ServerArgs("198.18.0.1", 5201), " "); got != "iperf3 -s -1 -p 5201 -B 198.18.0.1 -J" {
		t.Errorf("ServerArgs: %s", got)
	}
	for _, bad := range []bench.Params{
		{}, {Duration: 1500 * time.Millisecond}, {Duration: time.Second, Omit: -time.Second}, {Duration: time.Second, Parallel: 129},
		{Duration: time.Second, Length: "-x"}, {Duration: time.Second, Bitrate: "$(x)"}, {Duration: time.Second, CongestionControl: "a;b"},
	} {
		if iperf3.Validate("198.18.0.1", bad) == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if iperf3.Validate("198.18.0.1; x", bench.Params{Duration: time.Second}) == nil {
		t.Error("bad address accepted")
	}
}

// checkIntervals: one interval per second of the test (omit included,
// marked), each with throughput, and with the sender's cwnd and RTT when
// the client sends TCP; their time-weighted mean is the sender's total.
func checkIntervals(t *testing.T, p bench.Params, s bench.Sample) {
	t.Helper()
	want := int((p.Duration + p.Omit) / time.Second)
	if len(s.Intervals) != want {
		t.Fatalf("%d intervals, want %d", len(s.Intervals), want)
	}
	var bits, secs float64
	omitted := 0
	for i, iv := range s.Intervals {
		if iv.Bps <= 0 || iv.End <= iv.Start {
			t.Errorf("interval %d: %+v", i, iv)
		}
		if !p.UDP && !p.Reverse && (iv.CwndBytes <= 0 || iv.RTTUs <= 0) {
			t.Errorf("interval %d without cwnd/RTT: %+v", i, iv)
		}
		if iv.Omitted {
			omitted++
			continue
		}
		bits += iv.Bps * (iv.End - iv.Start)
		secs += iv.End - iv.Start
	}
	if omitted != int(p.Omit/time.Second) {
		t.Errorf("%d omitted intervals for omit %v", omitted, p.Omit)
	}
	if d := bits/secs/s.SenderBps - 1; d > 0.02 || d < -0.02 {
		t.Errorf("intervals average %.4g b/s, sender total %.4g", bits/secs, s.SenderBps)
	}
}

// TestStartGate: Run waits at the context's start gate once its server
// listens and starts the client only when the gate opens; a gate that
// will not open ends the run with its error.
func TestStartGate(t *testing.T) {
	server, client := pair(t)
	var opened time.Time
	gate := func(ctx context.Context) error {
		time.Sleep(300 * time.Millisecond) // the other flows' servers starting
		opened = time.Now()
		return nil
	}
	raw, err := new(iperf3.Runner).Run(bench.WithStartGate(context.Background(), gate), server, client, bench.Params{Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if opened.IsZero() || raw.Start.Before(opened) {
		t.Errorf("client started %v, gate opened %v: want the client after the gate", raw.Start, opened)
	}
	if !strings.Contains(raw.Server, `"end"`) {
		t.Errorf("no server JSON: %.200s", raw.Server)
	}
	shut := errors.New("another flow failed")
	_, err = new(iperf3.Runner).Run(bench.WithStartGate(context.Background(), func(context.Context) error { return shut }),
		server, client, bench.Params{Duration: time.Second})
	if !errors.Is(err, shut) {
		t.Errorf("err %v, want the gate's", err)
	}
}
