package iperf3

import (
	"slices"
	"strconv"
	"strings"
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
		Packages: map[string]string{guest.PackagingDeb: "iperf3", guest.PackagingPorts: "benchmarks/iperf3"},
		// iperf3 -v / --version prints "iperf 3.12 (cJSON 1.7.15)" first
		// (src/iperf_api.c, the 'v' case of iperf_parse_arguments).
		Version: versionArgv}},
	NewRunner: func() bench.Runner { return &Runner{} },
	// iperf3 reports both ends (end.sum_sent, end.sum_received).
	ThroughputSides: []string{"sender", "receiver"},
	Intervals:       Intervals,
}

// own is p's iperf3-only parameters, made when first set.
func own(p *bench.Params) *bench.Iperf3Params {
	if p.Iperf3 == nil {
		p.Iperf3 = &bench.Iperf3Params{}
	}
	return p.Iperf3
}

// dscpMatcher accepts what iperf3's parse_qos (src/dscp.c) accepts: a
// name of its table, case-insensitive, or an integer 0–63.
type dscpMatcher struct{}

// dscpNames are the names of src/dscp.c's ipqos table.
var dscpNames = []string{"af11", "af12", "af13", "af21", "af22", "af23", "af31", "af32", "af33", "af41", "af42", "af43",
	"cs0", "cs1", "cs2", "cs3", "cs4", "cs5", "cs6", "cs7", "ef", "va", "lowdelay", "throughput", "reliability"}

func (dscpMatcher) MatchString(s string) bool {
	if slices.Contains(dscpNames, strings.ToLower(s)) {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 63
}

// block is the iperf3 { … } benchmark block.
var block = bench.Block{
	Defaults: func(p *bench.Params) {
		p.Duration = 10 * time.Second
		p.Parallel = 1
	},
	Attrs: map[string]bench.Attr{
		// iperf3 arms its end-of-test timer only for a duration other than 0
		// (iperf_client_api.c: "if (test->duration != 0)"), so -t 0 runs
		// until stopped; omit comes on top of the duration.
		"duration": bench.MeasuredDurationAttr("iperf3 -t 0 runs until stopped; omit comes on top of it",
			func(p *bench.Params, d time.Duration) { p.Duration = d }),
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
		"window": bench.PatternAttr(bench.LengthRe, "Invalid window",
			`write a socket buffer size in bytes with an optional K, M or G suffix, like "256K" (iperf3 -w)`,
			func(p *bench.Params, s string) { own(p).Window = s }),
		// iperf3 passes -M to setsockopt(TCP_MAXSEG); Linux refuses
		// values below 88 (TCP_MIN_MSS) and above 65535 (net/ipv4/tcp.c).
		"mss":      bench.IntAttr(88, 65535, func(p *bench.Params, n int) { own(p).MSS = n }),
		"no_delay": bench.BoolAttr(func(p *bench.Params, b bool) { own(p).NoDelay = b }),
		"zerocopy": bench.BoolAttr(func(p *bench.Params, b bool) { own(p).ZeroCopy = b }),
		"dscp": bench.PatternAttr(dscpMatcher{}, "Invalid DSCP",
			`write 0–63 or a DSCP name iperf3 knows (af11…af43, cs0…cs7, ef, va; src/dscp.c)`,
			func(p *bench.Params, s string) { own(p).DSCP = s }),
		"fq_rate": bench.PatternAttr(bench.BitrateRe, "Invalid fq_rate",
			`write a number of bits per second with an optional K, M or G suffix, like "1G" (iperf3 --fq-rate)`,
			func(p *bench.Params, s string) { own(p).FQRate = s }),
		"bidir": bench.BoolAttr(func(p *bench.Params, b bool) { own(p).Bidir = b }),
	},
	Checks: []bench.Check{{
		Attrs: []string{"bidir", "reverse"},
		Check: func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic {
			// iperf3 refuses -R with --bidir: "cannot be both reverse and
			// bidirectional" (src/iperf_error.c, IEREVERSEBIDIR).
			if p.Iperf3 == nil || !p.Iperf3.Bidir || !p.Reverse {
				return nil
			}
			return hclvalue.Errorf(attrs["bidir"].Expr.Range(), "Conflicting directions",
				"bidir runs both directions at once; drop reverse (iperf3: \"cannot be both reverse and bidirectional\").")
		},
	}, {
		Attrs: []string{"mss", "no_delay", "udp"},
		Check: func(p *bench.Params, attrs hcl.Attributes, block hcl.Range) *hcl.Diagnostic {
			if !p.UDP || p.Iperf3 == nil {
				return nil
			}
			for _, name := range []string{"mss", "no_delay"} {
				if a := attrs[name]; a != nil {
					return hclvalue.Errorf(a.Expr.Range(), "TCP option on a UDP benchmark",
						"%s sets a TCP socket option; a UDP benchmark (udp = true) has no TCP socket.", name)
				}
			}
			return nil
		},
	}},
}
