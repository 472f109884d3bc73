package tools_test

import (
	"context"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	_ "github.com/lab-bench/lab/guest/oses"
)

// garbageEnd is one end of a run whose tool prints garbage: what every
// server and client command prints is out, while the commands around them
// answer as the real ones do — ss -Hltn / -Hlun print one row per socket
// and no header (iproute2, misc/ss.c), `sh -c "command -v X"` prints the
// program's path, /proc/stat one "cpuN" line per CPU (proc(5)).
type garbageEnd struct {
	name string
	out  string
	once *sync.Once
	ran  chan struct{} // closed once a command other than a server ran
}

func (e garbageEnd) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	argv := c.Argv
	switch {
	case argv[0] == "ss":
		return guest.Result{Stdout: []byte("LISTEN 0      5         198.18.0.1:5201      0.0.0.0:*\n")}, nil
	case argv[0] == "sh":
		return guest.Result{Stdout: []byte("/usr/bin/x\n")}, nil
	case c.String() == "cat /proc/stat":
		return guest.Result{Stdout: []byte("cpu  4000 0 2300 193530 0 0 170 0 0 0\ncpu0 2100 0 1200 96610 0 0 90 0 0 0\n")}, nil
	case slices.Contains(argv, "-s") || argv[0] == "netserver" || slices.Contains(argv, "server"):
		// A server runs until its client ran (iperf3 -1) or it is killed.
		select {
		case <-e.ran:
		case <-ctx.Done():
		}
		return guest.Result{Stdout: []byte(e.out)}, nil
	}
	e.once.Do(func() { close(e.ran) })
	return guest.Result{Stdout: []byte(e.out), Stderr: []byte(e.out)}, nil
}

func (e garbageEnd) Upload(context.Context, string, io.Reader) error { return nil }
func (e garbageEnd) Name() string                                    { return e.name }
func (e garbageEnd) Close() error                                    { return nil }

// TestGarbageOutput runs every tool's runner through bench.ClientServer
// against ends whose tool prints garbage, and parses what it kept: never a
// panic, and never a measurement.
func TestGarbageOutput(t *testing.T) {
	rnd := rand.New(rand.NewChaCha8([32]byte{36}))
	noise := make([]byte, 512)
	for i := range noise {
		noise[i] = byte(rnd.Uint32())
	}
	garbage := map[string]string{
		"empty":         "",
		"noise":         string(noise),
		"cut json":      `{"start":{"version":"iperf 3.12","test_start":{"reverse":1}},"end":{"sum_sent":{"bits_per_second":`,
		"json of nulls": `{"start":null,"end":{"sum_sent":null,"sum_received":null,"streams":[null]},"intervals":[null]}`,
		"iperf2 cut":    "[  1] 0.0000-1.0000 sec  \n[SUM] 0.0-\nBB8(f)-PDF: bin(w=100us):cnt(3)=1:1,x\n",
		"netperf keys":  "THROUGHPUT=1e999\nTHROUGHPUT_UNITS=\nMEAN_LATENCY=-\nCONFIDENCE_ITERATION=abc\n",
		"sockperf cut":  "sockperf: ====> avg-rtt=x (std-dev=)\nsockperf: Total -1 observations\nsockperf: ---> percentile 99.000 = \n",
		"colour codes":  "\x1b[2;35m\x1b[0m\x1b[",
	}
	for _, tool := range bench.Names() {
		for name, out := range garbage {
			t.Run(tool+"/"+name, func(t *testing.T) {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				once, ran := new(sync.Once), make(chan struct{})
				server := bench.Endpoint{T: garbageEnd{"pair.g.server", out, once, ran}, Addr: "198.18.0.1", OS: bench.Linux}
				client := bench.Endpoint{T: garbageEnd{"pair.g.client", out, once, ran}, Addr: "198.18.0.2", OS: bench.Linux}
				r, err := bench.NewRunner(tool)
				if err != nil {
					t.Fatal(err)
				}
				p := bench.Params{Tool: tool, Duration: time.Second, Port: 5201, Parallel: 1}
				if tool == "sockperf" {
					p.UDP = true
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				raw, runErr := r.Run(ctx, server, client, p)
				if s, err := r.Parse(raw); err == nil {
					t.Errorf("garbage parsed into a measurement (run error %v): %+v", runErr, s)
				}
			})
		}
	}
}
