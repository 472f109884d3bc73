package iperf3_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf3"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/golden"
)

// fakeHost is one end of a cross-OS run: a guest.Transport answering the
// commands the runner sends with what the OS's tools print, keeping the
// state that orders them (a server listens only once its command started;
// iperf3 -s -1 exits once a client ran).
type fakeHost struct {
	name, os string
	// row is what ListenCmd prints for a socket listening on port (a
	// format taking the port); none what it prints when nothing listens.
	row, none string
	// cpu are successive replies to the CPU-times read (the last repeats).
	cpu                  []string
	serverOut, clientOut string
	server               *fakeHost // a client's server end

	mu        sync.Mutex
	log       []string
	listening map[int]chan struct{}
	samples   int
	sampled   chan struct{}
}

func newFakeHost(name, os, row string, cpu ...string) *fakeHost {
	return &fakeHost{name: name, os: os, row: row, cpu: cpu, listening: map[int]chan struct{}{}, sampled: make(chan struct{})}
}

func (h *fakeHost) record(line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, "$ "+line)
}

func portOf(argv []string) int {
	i := slices.Index(argv, "-p")
	if i < 0 || i+1 >= len(argv) {
		return 0
	}
	p, _ := strconv.Atoi(argv[i+1])
	return p
}

func (h *fakeHost) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	line := c.String()
	argv := c.Argv
	if i := slices.Index(argv, "iperf3"); i >= 0 {
		argv = argv[i:]
	}
	port, _ := strconv.Atoi(strings.TrimPrefix(c.Argv[len(c.Argv)-1], ":"))
	switch {
	case line == bench.ListenCmd(h.os, port).String():
		// The runner starts the server and polls at once; wait for the
		// server's command (up to a second) and log the poll after it, so
		// that the transcript does not depend on which came first.
		deadline := time.Now().Add(time.Second)
		for {
			h.mu.Lock()
			_, ok := h.listening[port]
			h.mu.Unlock()
			if ok || time.Now().After(deadline) {
				h.record(line)
				if ok {
					return guest.Result{Stdout: []byte(fmt.Sprintf(h.row, port))}, nil
				}
				return guest.Result{Stdout: []byte(h.none)}, nil
			}
			time.Sleep(time.Millisecond)
		}
	case slices.Contains(argv, "-s"):
		h.record(line)
		done := make(chan struct{})
		h.mu.Lock()
		h.listening[portOf(argv)] = done
		h.mu.Unlock()
		select {
		case <-done:
			return guest.Result{Stdout: []byte(h.serverOut)}, nil
		case <-ctx.Done():
			return guest.Result{}, &guest.CommandError{Guest: h.name, Cmd: line, Err: ctx.Err()}
		}
	case slices.Contains(argv, "-c"):
		// The first CPU sample is taken in the background at the end of
		// the omit period (0 here); wait for it so that the transcript's
		// order does not depend on scheduling.
		select {
		case <-h.sampled:
		case <-time.After(5 * time.Second):
		}
		h.record(line)
		h.server.mu.Lock()
		close(h.server.listening[portOf(argv)])
		h.server.mu.Unlock()
		return guest.Result{Stdout: []byte(h.clientOut)}, nil
	case line == "sysctl -n kern.cp_times" && h.os == bench.FreeBSD,
		line == "cat /proc/stat" && h.os == bench.Linux:
		h.record(line)
		h.mu.Lock()
		out := h.cpu[min(h.samples, len(h.cpu)-1)]
		h.samples++
		if h.samples == 1 {
			close(h.sampled)
		}
		h.mu.Unlock()
		return guest.Result{Stdout: []byte(out)}, nil
	}
	h.record(line)
	return guest.Result{ExitCode: 127}, &guest.CommandError{Guest: h.name, Cmd: line, ExitCode: 127, Stderr: argv[0] + ": not found"}
}

func (h *fakeHost) Upload(context.Context, string, io.Reader) error { return nil }
func (h *fakeHost) Name() string                                    { return h.name }
func (h *fakeHost) Close() error                                    { return nil }

func (h *fakeHost) transcript() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("== %s (%s)\n%s\n", h.name, h.os, strings.Join(h.log, "\n"))
}

// Replies of the FreeBSD end. sockstat -46l -P tcp -p PORT prints one row
// per listening socket and no header (usr.bin/sockstat/sockstat.c,
// display(): USER COMMAND PID FD PROTO LOCAL-ADDRESS FOREIGN-ADDRESS).
// sysctl -n kern.cp_times prints five longs per CPU (user nice sys intr
// idle, sys/kern/kern_clock.c sysctl_kern_cp_times) separated by spaces
// (sbin/sysctl/sysctl.c show_var).
const (
	bsdHeader = "USER     COMMAND    PID   FD PROTO  LOCAL ADDRESS         FOREIGN ADDRESS      \n"
	bsdRow    = bsdHeader + "root     iperf3      1187 3   tcp4   198.18.0.1:%d        *:*\n"
	bsdCPU0   = "2100 0 1200 90 96610 1900 0 1100 80 96920\n"
	bsdCPU1   = "2300 0 1700 140 96860 2000 0 1500 120 97380\n"
	linuxRow  = "LISTEN 0      5         198.18.0.1:%d      0.0.0.0:*\n"
	linuxCPU0 = "cpu  4000 0 2300 193530 0 0 170 0 0 0\ncpu0 2100 0 1200 96610 0 0 90 0 0 0\ncpu1 1900 0 1100 96920 0 0 80 0 0 0\n"
	linuxCPU1 = "cpu  4300 0 3200 194240 0 0 260 0 0 0\ncpu0 2300 0 1700 96860 0 0 140 0 0 0\ncpu1 2000 0 1500 97380 0 0 120 0 0 0\n"
)

// TestCrossOS runs the runner with a FreeBSD end as server and as client
// against a Linux end: the FreeBSD end is asked with sockstat, pinned with
// cpuset and sampled through kern.cp_times; the Linux end with ss, taskset
// and /proc/stat.
func TestCrossOS(t *testing.T) {
	for _, c := range []struct {
		name     string
		serverOS string
		clientOS string
	}{
		{"freebsd-server-linux-client", bench.FreeBSD, bench.Linux},
		{"linux-server-freebsd-client", bench.Linux, bench.FreeBSD},
		{"freebsd-both", bench.FreeBSD, bench.FreeBSD},
	} {
		t.Run(c.name, func(t *testing.T) {
			host := func(name, os string) *fakeHost {
				if os == bench.FreeBSD {
					h := newFakeHost(name, os, bsdRow, bsdCPU0, bsdCPU1)
					h.none = bsdHeader
					return h
				}
				return newFakeHost(name, os, linuxRow, linuxCPU0, linuxCPU1)
			}
			srv, cli := host("pair.x.server", c.serverOS), host("pair.x.client", c.clientOS)
			srv.serverOut, cli.clientOut, cli.server = read(t, "tcp-p1.server.json"), read(t, "tcp-p1.json"), srv
			r := &iperf3.Runner{ListenTimeout: 5 * time.Second}
			raw, err := r.Run(context.Background(),
				bench.Endpoint{T: srv, Addr: "198.18.0.1", CPUs: []int{1}, OS: c.serverOS},
				bench.Endpoint{T: cli, Addr: "198.18.0.2", CPUs: []int{0, 1}, OS: c.clientOS},
				bench.Params{Duration: time.Second, Port: 5201})
			if err != nil {
				t.Fatal(err)
			}
			cpu, _ := json.MarshalIndent(struct{ Server, Client bench.CPUUsage }{raw.ServerCPU, raw.ClientCPU}, "", "  ")
			golden.Check(t, filepath.Join("testdata", "crossos-"+c.name+".golden"),
				srv.transcript()+cli.transcript()+"== cpu\n"+string(cpu)+"\n")
		})
	}
}
