package spec

import (
	"regexp"
	"time"

	"github.com/lab-bench/lab/bench"
)

func init() { registerBench(netperfKind) }

var (
	netperfTestRe = regexp.MustCompile(`^(TCP_STREAM|TCP_RR|UDP_STREAM)$`)
	rrSizesRe     = regexp.MustCompile(`^[0-9]+[KMG]?,[0-9]+[KMG]?$`)
)

// np returns p's netperf parameters, allocating them on first use.
func np(p *bench.Params) *bench.NetperfParams {
	if p.Netperf == nil {
		p.Netperf = &bench.NetperfParams{Test: "TCP_STREAM"}
	}
	return p.Netperf
}

// netperfKind is the netperf { … } benchmark block:
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
var netperfKind = &benchKind{
	Tool: "netperf",
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		np(p)
	},
	Attrs: map[string]benchSetter{
		"duration": durationSetter(func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"test": patternSetter(netperfTestRe, "Invalid netperf test", `write "TCP_STREAM", "TCP_RR" or "UDP_STREAM"`,
			func(p *bench.Params, s string) { np(p).Test = s }),
		"send_size": patternSetter(lengthRe, "Invalid size", `write a number of bytes, at least 1, with an optional K, M or G suffix`,
			func(p *bench.Params, s string) { np(p).SendSize = s }),
		"send_buffer": patternSetter(lengthRe, "Invalid size", `write a number of bytes, at least 1, with an optional K, M or G suffix`,
			func(p *bench.Params, s string) { np(p).SendBuffer = s }),
		"recv_buffer": patternSetter(lengthRe, "Invalid size", `write a number of bytes, at least 1, with an optional K, M or G suffix`,
			func(p *bench.Params, s string) { np(p).RecvBuffer = s }),
		"request_response": patternSetter(rrSizesRe, "Invalid request/response sizes", `write "REQ,RESP", like "1,1"`,
			func(p *bench.Params, s string) { np(p).RequestResponse = s }),
		"confidence": intSetter(2, 30, func(p *bench.Params, n int) { np(p).Confidence = n }),
		"loopback":   boolSetter(func(p *bench.Params, b bool) { p.Loopback = b }),
		"port":       intSetter(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
	},
}
