package bench

import (
	"context"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/guesttest"
)

func TestPin(t *testing.T) {
	for _, c := range []struct {
		os   string
		cpus []int
		want []string
	}{
		{Linux, []int{0, 1}, []string{"taskset", "-c", "0,1", "iperf3", "-s"}},
		{"", []int{2}, []string{"taskset", "-c", "2", "iperf3", "-s"}},
		// cpuset(1), usr.bin/cpuset/cpuset.c main: -l LIST then the command to exec.
		{FreeBSD, []int{0, 1}, []string{"cpuset", "-l", "0,1", "iperf3", "-s"}},
		{FreeBSD, nil, []string{"iperf3", "-s"}},
		{Linux, nil, []string{"iperf3", "-s"}},
	} {
		if got := Pin(c.os, c.cpus, "iperf3", "-s"); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Pin(%q, %v) = %q, want %q", c.os, c.cpus, got, c.want)
		}
	}
}

func TestListening(t *testing.T) {
	// sockstat's header and row for a listening socket:
	// usr.bin/sockstat/sockstat.c display() prints the header
	// printf("%-8s %-10s %-5s %-2s %-6s %-21s %-21s\n", "USER", "COMMAND",
	// "PID", "FD", "PROTO", "LOCAL ADDRESS", "FOREIGN ADDRESS") — always
	// in 11.x, unless -q from 12.0 on; lab never passes -q — then one row
	// per socket. With no socket matching only the header is printed.
	const header = "USER     COMMAND    PID   FD PROTO  LOCAL ADDRESS         FOREIGN ADDRESS      \n"
	const row = "root     iperf3      1187 3   tcp4   10.0.0.1:5201         *:*\n"
	for _, c := range []struct {
		name, os, out string
		want          bool
		cmd           string
	}{
		{"freebsd-listening", FreeBSD, header + row, true, "sockstat -46l -P tcp -p 5201"},
		{"freebsd-free", FreeBSD, header, false, "sockstat -46l -P tcp -p 5201"},
		{"freebsd-free-no-output", FreeBSD, "", false, "sockstat -46l -P tcp -p 5201"},
		{"linux-listening", Linux, "LISTEN 0      5        10.0.0.2:5201      0.0.0.0:*\n", true, "ss -Hltn sport = :5201"},
		{"unknown-os-is-linux", "", "", false, "ss -Hltn sport = :5201"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &guesttest.Recorder{Guest: "pair.t.server", Replies: map[string]guesttest.Reply{c.cmd: {Out: c.out}}}
			got, err := Listening(context.Background(), Endpoint{T: rec, OS: c.os}, 5201)
			if err != nil || got != c.want {
				t.Errorf("Listening = %v, %v; want %v", got, err, c.want)
			}
			if log := strings.TrimSpace(rec.Log.String()); log != "$ "+c.cmd {
				t.Errorf("ran %q, want %q", log, c.cmd)
			}
		})
	}
}

func TestReadMHz(t *testing.T) {
	// hw.clockrate: sys/x86/x86/identcpu.c, SYSCTL_INT "CPU instruction
	// clock rate" in MHz; sysctl -n prints the bare integer.
	rec := &guesttest.Recorder{Guest: "pair.fbsd.server", Replies: map[string]guesttest.Reply{"sysctl -n hw.clockrate": {Out: "2394\n"}}}
	got, err := ReadMHz(context.Background(), Endpoint{T: rec, OS: FreeBSD})
	if err != nil || got != 2394 {
		t.Errorf("ReadMHz = %v, %v", got, err)
	}
}

// bsdHost answers a FreeBSD end for StartServer: sockstat lists the
// server's socket once its command runs (usr.bin/sockstat/sockstat.c,
// display(): the header line, then one row per listening socket), and the
// server runs until it is stopped.
// sockstatHeader is display()'s header line (usr.bin/sockstat/sockstat.c).
const sockstatHeader = "USER     COMMAND    PID   FD PROTO  LOCAL ADDRESS         FOREIGN ADDRESS      \n"

type bsdHost struct {
	mu      sync.Mutex
	log     []string
	started chan struct{}
}

func (h *bsdHost) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	line := c.String()
	if strings.HasPrefix(line, "sockstat ") {
		select {
		case <-h.started:
			h.record(line)
			return guest.Result{Stdout: []byte(sockstatHeader + "root     iperf       1201 3   tcp4   198.18.0.1:5001       *:*\n")}, nil
		case <-time.After(time.Second):
			h.record(line)
			return guest.Result{Stdout: []byte(sockstatHeader)}, nil
		}
	}
	h.record(line)
	close(h.started)
	<-ctx.Done()
	return guest.Result{Stdout: []byte("server output\n")}, &guest.CommandError{Guest: "pair.fbsd.server", Cmd: line, Err: ctx.Err()}
}

func (h *bsdHost) record(line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, line)
}
func (h *bsdHost) Upload(context.Context, string, io.Reader) error { return nil }
func (h *bsdHost) Name() string                                    { return "pair.fbsd.server" }
func (h *bsdHost) Close() error                                    { return nil }

// TestStartServerFreeBSD: the iperf 2 and netperf runners' server start on
// a FreeBSD end — pinned with cpuset, found listening with sockstat.
func TestStartServerFreeBSD(t *testing.T) {
	h := &bsdHost{started: make(chan struct{})}
	ep := Endpoint{T: h, Addr: "198.18.0.1", CPUs: []int{1}, OS: FreeBSD}
	listening := func(ctx context.Context) (bool, error) { return Listening(ctx, ep, 5001) }
	r := readiness{listening, "listening on port 5001", 5 * time.Second, 20 * time.Millisecond}
	srv, err := startServer(context.Background(), ep, guest.Cmd{Argv: ep.Pin("iperf", "-s", "-p", "5001")}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := srv.Stop(); out != "server output\n" {
		t.Errorf("server printed %q", out)
	}
	want := "cpuset -l 1 iperf -s -p 5001\nsockstat -46l -P tcp -p 5001"
	if got := strings.Join(h.log, "\n"); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
}
