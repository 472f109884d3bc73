package iperf3

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/hclvalue"
)

func init() { bench.Register(Tool) }

// Tool is iperf3 as lab knows it: the iperf3 { … } block, iperf3 on both
// ends, and the runner.
var Tool = &bench.Tool{
	Name:  "iperf3",
	Block: block,
	Programs: []bench.Program{{Name: "iperf3", Roles: []string{"server", "client"},
		Packages: map[string]string{guest.PackagingDeb: "iperf3", guest.PackagingPorts: "benchmarks/iperf3"}}},
	NewRunner: func() bench.Runner { return &Runner{} },
	// iperf3 reports both ends (end.sum_sent, end.sum_received).
	ThroughputSides: []string{"sender", "receiver"},
	Intervals:       Intervals,
}

// block is the iperf3 { … } benchmark block.
var block = bench.Block{
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		p.Parallel = 1
	},
	Attrs: map[string]bench.Attr{
		"duration": bench.DurationAttr(func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"omit":     bench.DurationAttr(func(p *bench.Params, d time.Duration) { p.Omit = d }),
		"parallel": bench.IntAttr(1, 128, func(p *bench.Params, n int) { p.Parallel = n }),
		"reverse":  bench.BoolAttr(func(p *bench.Params, b bool) { p.Reverse = b }),
		"udp":      bench.BoolAttr(func(p *bench.Params, b bool) { p.UDP = b }),
		"port":     bench.IntAttr(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
		"length": bench.PatternAttr(bench.LengthRe, "Invalid buffer length",
			`write a number of bytes, at least 1, with an optional K, M or G suffix, like "128K"`,
			func(p *bench.Params, s string) { p.Length = s }),
		"bitrate": bench.PatternAttr(bench.BitrateRe, "Invalid bitrate",
			`write a number of bits per second with an optional K, M or G suffix, like "1G" or "2.5G"`,
			func(p *bench.Params, s string) { p.Bitrate = s }),
		"congestion_control": bench.CongestionControlAttr(func(p *bench.Params, s string) { p.CongestionControl = s }),
	},
	Checks: []bench.Check{{
		Attrs: []string{"duration", "omit"},
		Check: func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic {
			// iperf3 runs omit + duration seconds: --omit comes on top of -t.
			if p.Duration > 0 {
				return nil
			}
			rng := block
			if a := attrs["duration"]; a != nil {
				rng = a.Expr.Range()
			} else if a := attrs["omit"]; a != nil {
				rng = a.Expr.Range()
			}
			return hclvalue.Errorf(rng, "Invalid duration",
				"duration must be at least 1s (omit, here %s, comes on top of it: iperf3 runs omit + duration seconds).", p.Omit)
		},
	}},
}
