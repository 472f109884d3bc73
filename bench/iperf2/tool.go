package iperf2

import (
	"net/netip"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/hclvalue"
)

func init() { bench.Register(Tool) }

// Tool is iperf 2 as lab knows it: the iperf2 { … } block, `iperf` on
// both ends, and the runner.
var Tool = &bench.Tool{
	Name:  "iperf2",
	Block: block,
	Programs: []bench.Program{{Name: "iperf", Roles: []string{"server", "client"},
		Packages: map[string]string{guest.PackagingDeb: "iperf", guest.PackagingPorts: "benchmarks/iperf"},
		Version:  versionArgv}},
	NewRunner: func() bench.Runner { return &Runner{} },
	// iperf 2's client prints its own, sending side's report only (lab
	// runs no -R with iperf 2 and does not read the server's).
	ThroughputSides: []string{"sender"},
}

// ipAddr accepts IP addresses (bind).
type ipAddr struct{}

func (ipAddr) MatchString(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

// block is the iperf2 { … } benchmark block (iperf 2, `iperf`):
//
//	iperf2 {
//	  duration = "10s"  interval = "1s"  length = "1M"  parallel = 1
//	  dualtest = false  tradeoff = false  enhanced = true
//	  congestion_control = "cubic"   # -Z, per socket
//	  bind = "198.18.0.2"            # -B on the client; default: none
//	  loopback = false               # server and client on the server end, 127.0.0.1
//	  bounceback = false             # request/response latency test (--bounceback)
//	  port = 5001
//	}
var block = bench.Block{
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		p.Interval = time.Second
		p.Parallel = 1
		p.Enhanced = true
	},
	Attrs: map[string]bench.Attr{
		// iperf 2.1 reads a -t of 0 or less as "run until stopped"
		// (src/Settings.cpp, case 't': "if (val > 0.0) … else
		// infinitetime = 1").
		"duration": bench.MeasuredDurationAttr("iperf -t 0 runs until stopped",
			func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"interval": bench.DurationAttr(func(p *bench.Params, d time.Duration) { p.Interval = d }),
		"parallel": bench.IntAttr(1, 128, func(p *bench.Params, n int) { p.Parallel = n }),
		"dualtest": bench.BoolAttr(func(p *bench.Params, b bool) { p.Dualtest = b }),
		"tradeoff": bench.BoolAttr(func(p *bench.Params, b bool) { p.Tradeoff = b }),
		"enhanced": bench.BoolAttr(func(p *bench.Params, b bool) { p.Enhanced = b }),
		"loopback": bench.BoolAttr(func(p *bench.Params, b bool) { p.Loopback = b }),
		"bounceback": bench.BoolAttr(func(p *bench.Params, b bool) {
			p.Bounceback = b
			if b {
				p.Enhanced = true
			}
		}),
		"port": bench.IntAttr(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
		"length": bench.PatternAttr(bench.LengthRe, "Invalid buffer length",
			`write a number of bytes, at least 1, with an optional K, M or G suffix, like "1M"`,
			func(p *bench.Params, s string) { p.Length = s }),
		"bind": bench.PatternAttr(ipAddr{}, "Invalid bind address", "write an IP address",
			func(p *bench.Params, s string) { p.Bind = s }),
		"congestion_control": bench.CongestionControlAttr(func(p *bench.Params, s string) { p.CongestionControl = s }),
	},
	Checks: []bench.Check{{
		Attrs: []string{"bounceback", "dualtest", "tradeoff", "parallel"},
		Check: func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic {
			if !p.Bounceback || !(p.Dualtest || p.Tradeoff || p.Parallel > 1) {
				return nil
			}
			return hclvalue.Errorf(attrs["bounceback"].Expr.Range(), "Conflicting iperf2 modes",
				"bounceback (request/response) runs one connection in one direction: leave dualtest, tradeoff and parallel > 1 out.")
		},
	}, {
		Attrs: []string{"dualtest", "tradeoff"},
		Check: func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic {
			if !(p.Dualtest && p.Tradeoff) {
				return nil
			}
			return hclvalue.Errorf(attrs["tradeoff"].Expr.Range(), "Conflicting iperf2 modes",
				"dualtest (-d, both directions at once) and tradeoff (-r, one after the other) exclude each other.")
		},
	}},
}
