package netperf

import (
	"regexp"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

func init() { bench.Register(Tool) }

// Tool is netperf as lab knows it: the netperf { … } block, netserver on
// the server end and netperf on the client end, and the runner.
var Tool = &bench.Tool{
	Name:  "netperf",
	Block: block,
	Programs: []bench.Program{
		{Name: "netserver", Roles: []string{"server"}, Packages: packages, Unpackaged: debianHint},
		{Name: "netperf", Roles: []string{"client"}, Packages: packages, Unpackaged: debianHint, Version: versionArgv},
	},
	NewRunner: func() bench.Runner { return &Runner{} },
	// netperf prints one THROUGHPUT per test, run from the sending end;
	// lab records that one figure as both throughput_bps and the sender's,
	// so it is not a receiver's figure to compare a post's with.
	ThroughputSides: []string{"sender"},
	LossPortRefusal: "loss_port filters TCP packets to one port, but netperf's data connection uses a port netserver picks, not its control port; leave loss_port out for netperf.",
}

// packages bring netperf and netserver: the FreeBSD port. Debian has no
// package in its default (main) component: debianHint.
var packages = map[string]string{guest.PackagingPorts: "benchmarks/netperf"}

// debianHint is the Debian hint in place of a package name: Debian ships
// netperf only in its non-free component (packages.debian.org,
// bookworm/netperf, section non-free/net), so on a default Debian 12 a
// plain "apt-get install netperf" finds no candidate (issue 35).
var debianHint = map[string]string{guest.PackagingDeb: "Debian: enable the non-free component in /etc/apt/sources.list.d/debian.sources, apt-get update, then apt-get install netperf; Ubuntu: apt-get install netperf (multiverse)"}

var (
	testRe    = regexp.MustCompile(`^(TCP_STREAM|TCP_RR|UDP_STREAM)$`)
	rrSizesRe = regexp.MustCompile(`^[0-9]+[KMG]?,[0-9]+[KMG]?$`)
)

// np returns p's netperf parameters, allocating them on first use.
func np(p *bench.Params) *bench.NetperfParams {
	if p.Netperf == nil {
		p.Netperf = &bench.NetperfParams{Test: "TCP_STREAM"}
	}
	return p.Netperf
}

const sizeRule = `write a number of bytes, at least 1, with an optional K, M or G suffix`

// block is the netperf { … } benchmark block:
//
//	netperf {
//	  test = "TCP_STREAM"        # TCP_RR, UDP_STREAM
//	  duration = "10s"
//	  send_size = "128"          # -m
//	  send_buffer = "8K"         # -s
//	  recv_buffer = "8K"         # -S
//	  request_response = "1,1"   # -r (TCP_RR)
//	  confidence = 10            # -I 99,5 -i 10,3
//	}
var block = bench.Block{
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		np(p)
	},
	Attrs: map[string]bench.Attr{
		// netperf -l 0 sets no end condition: src/netsh.c leaves test_time,
		// test_bytes and test_trans 0, and the test timer is alarm(0),
		// which arms none (src/netlib.c start_timer).
		"duration": bench.MeasuredDurationAttr("netperf -l 0 runs until stopped",
			func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"test": bench.PatternAttr(testRe, "Invalid netperf test", `write "TCP_STREAM", "TCP_RR" or "UDP_STREAM"`,
			func(p *bench.Params, s string) { np(p).Test = s }),
		"send_size": bench.PatternAttr(bench.LengthRe, "Invalid size", sizeRule,
			func(p *bench.Params, s string) { np(p).SendSize = s }),
		"send_buffer": bench.PatternAttr(bench.LengthRe, "Invalid size", sizeRule,
			func(p *bench.Params, s string) { np(p).SendBuffer = s }),
		"recv_buffer": bench.PatternAttr(bench.LengthRe, "Invalid size", sizeRule,
			func(p *bench.Params, s string) { np(p).RecvBuffer = s }),
		"request_response": bench.PatternAttr(rrSizesRe, "Invalid request/response sizes", `write "REQ,RESP", like "1,1"`,
			func(p *bench.Params, s string) { np(p).RequestResponse = s }),
		"confidence": bench.IntAttr(2, 30, func(p *bench.Params, n int) { np(p).Confidence = n }),
		"loopback":   bench.BoolAttr(func(p *bench.Params, b bool) { p.Loopback = b }),
		"port":       bench.IntAttr(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
	},
}
