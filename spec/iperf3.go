package spec

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
)

func init() { registerBench(iperf3Kind) }

// iperf3Kind is the iperf3 { … } benchmark block.
var iperf3Kind = &benchKind{
	Tool: "iperf3",
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		p.Parallel = 1
	},
	Attrs: map[string]benchSetter{
		"duration": durationSetter(func(p *bench.Params, d time.Duration) { p.Duration = d }),
		"omit":     durationSetter(func(p *bench.Params, d time.Duration) { p.Omit = d }),
		"parallel": intSetter(1, 128, func(p *bench.Params, n int) { p.Parallel = n }),
		"reverse":  boolSetter(func(p *bench.Params, b bool) { p.Reverse = b }),
		"udp":      boolSetter(func(p *bench.Params, b bool) { p.UDP = b }),
		"port":     intSetter(1, 65535, func(p *bench.Params, n int) { p.Port = n }),
		"length": patternSetter(lengthRe, "Invalid buffer length",
			`write a number of bytes, at least 1, with an optional K, M or G suffix, like "128K"`,
			func(p *bench.Params, s string) { p.Length = s }),
		"bitrate": patternSetter(bitrateRe, "Invalid bitrate",
			`write a number of bits per second with an optional K, M or G suffix, like "1G" or "2.5G"`,
			func(p *bench.Params, s string) { p.Bitrate = s }),
		"congestion_control": ccSetter(func(p *bench.Params, s string) { p.CongestionControl = s }),
	},
	Checks: []benchCheck{{
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
			return errorf(rng, "Invalid duration",
				"duration must be at least 1s (omit, here %s, comes on top of it: iperf3 runs omit + duration seconds).", p.Omit)
		},
	}},
}
