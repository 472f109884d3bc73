package sockperf

import (
	"regexp"
	"strconv"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/hclvalue"
)

func init() { bench.Register(Tool) }

// Tool is sockperf as lab knows it: the sockperf { … } block, `sockperf
// server` on the server end and the client mode on the client end, and the
// runner.
var Tool = &bench.Tool{
	Name:  "sockperf",
	Block: block,
	Programs: []bench.Program{{
		Name: "sockperf", Roles: []string{"server", "client"},
		Packages: map[string]string{guest.PackagingDeb: "sockperf"},
		// No FreeBSD port packages sockperf (the ports tree has no
		// benchmarks/sockperf, nor any other origin of it); sockperf's
		// README builds it from source there ("FreeBSD: sudo pkg install
		// gmake automake libtool", then ./autogen.sh, ./configure, make).
		Unpackaged: map[string]string{guest.PackagingPorts: "no FreeBSD port: pkg install gmake automake libtool, " +
			"then build https://github.com/Mellanox/sockperf (./autogen.sh && ./configure && gmake install)"},
	}},
	NewRunner: func() bench.Runner { return &Runner{} },
	// The throughput mode reports what the client sent (stream_statistics:
	// messages sent over the run time), not what the server received.
	ThroughputSides: []string{"sender"},
}

var modeRe = regexp.MustCompile(`^(ping-pong|under-load|throughput)$`)

// sp returns p's sockperf parameters, allocating them on first use.
func sp(p *bench.Params) *bench.SockperfParams {
	if p.Sockperf == nil {
		p.Sockperf = &bench.SockperfParams{Mode: "ping-pong"}
	}
	return p.Sockperf
}

// block is the sockperf { … } benchmark block:
//
//	sockperf {
//	  mode         = "ping-pong"   # under-load, throughput
//	  duration     = "10s"         # -t
//	  message_size = 64            # -m (14..65507)
//	  mps          = 10000         # --mps (under-load only)
//	  tcp          = false         # --tcp (sockperf's default is UDP)
//	  port         = 11111         # -p
//	}
var block = bench.Block{
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		p.UDP = true
		sp(p)
	},
	Attrs: map[string]bench.Attr{
		// sockperf refuses -t 0 ("'-t' Invalid duration": src/sockperf.cpp
		// checks "value <= 0 || value > MAX_DURATION").
		"duration": bench.MeasuredDurationAttr("sockperf refuses -t 0: \"Invalid duration\"",
			func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"mode": bench.PatternAttr(modeRe, "Invalid sockperf mode", `write "ping-pong", "under-load" or "throughput"`,
			func(p *bench.Params, s string) { sp(p).Mode = s }),
		"message_size": bench.IntAttr(MinMessageSize, MaxMessageSize, func(p *bench.Params, n int) { p.Length = strconv.Itoa(n) }),
		"mps":          bench.IntAttr(1, MaxMPS, func(p *bench.Params, n int) { sp(p).MPS = n }),
		"tcp":          bench.BoolAttr(func(p *bench.Params, b bool) { p.UDP = !b }),
		"port":         bench.IntAttr(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
	},
	Checks: []bench.Check{{
		Attrs: []string{"mps", "mode"},
		Check: func(p *bench.Params, attrs hcl.Attributes, _ hcl.Range) *hcl.Diagnostic {
			// MPS is 0 unless mps is set (to at least 1): a null mps, as a
			// conditional over the matrix writes it, leaves it unset.
			if a := attrs["mps"]; a != nil && sp(p).MPS != 0 && sp(p).Mode != "under-load" {
				return hclvalue.Errorf(a.Expr.Range(), "Invalid sockperf mps",
					"mps is the message rate of mode = \"under-load\" (ping-pong and throughput send as fast as they can); the mode is %q.", sp(p).Mode)
			}
			return nil
		},
	}},
}
