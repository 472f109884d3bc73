package sockperf

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/bench"
)

// The lines Parse reads, as sockperf prints them (src/client.cpp:
// client_statistics, printPercentiles and stream_statistics), each after
// the "sockperf: " prefix and with the colour codes (MAGNETA … ENDCOLOR)
// removed:
//
//	== version #3.7-no.git ==
//	[Valid Duration] RunTime=1.544 sec; SentMessages=21849; ReceivedMessages=21849
//	====> avg-rtt=70.601 (std-dev=798.873)       (3.7; later: std-dev=…, mean-ad=…, …)
//	Total 21849 observations; each percentile contains 218.49 observations
//	---> <MAX> observation = 45351.653
//	---> percentile 99.999 = 45351.653           (99.990, 99.900, 99.000, 90.000, 75.000, 50.000, 25.000)
//	---> <MIN> observation =   11.296
//	Summary: BandWidth is 12.345 MBps (98.760 Mbps)   (throughput mode)
//
// sockperf computes each percentile from the sorted array of every
// observation (printPercentiles: sortedpLat[(int)(0.5 + p*size) - 1]), not
// from histogram bins, so LatencySample.ResolutionUs is 0.
var (
	ansiRe     = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	versionRe  = regexp.MustCompile(`== version #(\S+) ==`)
	validRe    = regexp.MustCompile(`^\[Valid Duration\] RunTime=([0-9.]+) sec; SentMessages=([0-9]+); ReceivedMessages=([0-9]+)`)
	avgRe      = regexp.MustCompile(`^====> avg-(rtt|latency)=([0-9.]+) \(std-dev=([0-9.]+)`)
	totalRe    = regexp.MustCompile(`^Total ([0-9]+) observations`)
	obsRe      = regexp.MustCompile(`^---> <(MAX|MIN)> observation = *([0-9.]+)$`)
	pctRe      = regexp.MustCompile(`^---> percentile +([0-9.]+) = *([0-9.]+)$`)
	bandRe     = regexp.MustCompile(`^Summary: BandWidth is [0-9.]+ [MG]Bps \(([0-9.]+) ([MG])bps\)`)
	noReplyMsg = []string{"No messages were received from the server", "No valid observations found", "No messages were sent"}
)

// Parse reads the client output in raw into a latency sample (ping-pong,
// under-load) or a throughput (throughput mode).
func (r *Runner) Parse(raw bench.Raw) (bench.Sample, error) {
	s, err := ParseClient(raw.Client)
	if err != nil {
		return bench.Sample{}, err
	}
	s.ServerCPU, s.ClientCPU = raw.ServerCPU, raw.ClientCPU
	if s.Version == "" {
		s.Version = raw.Version
	}
	if err := bench.CheckSample(s); err != nil {
		return bench.Sample{}, fmt.Errorf("sockperf output: %w", err)
	}
	return s, nil
}

// lines are the output's lines without sockperf's prefix and colour codes.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(ansiRe.ReplaceAllString(text, ""), "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "sockperf:"))
		out = append(out, l)
	}
	return out
}

// ParseClient reads a sockperf client's output.
func ParseClient(text string) (bench.Sample, error) {
	var s bench.Sample
	if m := versionRe.FindStringSubmatch(text); m != nil {
		s.Version = "sockperf " + m[1]
	}
	for _, msg := range noReplyMsg {
		if strings.Contains(text, msg) {
			return s, fmt.Errorf("sockperf: %s", msg)
		}
	}
	// An error sockperf printed (log_err in src/defs.h: "sockperf: ERROR:
	// … (errno=N …)") is why the statistics are missing: say it.
	for _, l := range lines(text) {
		if msg, ok := strings.CutPrefix(l, "ERROR:"); ok {
			return s, fmt.Errorf("sockperf: %s", strings.TrimSpace(msg))
		}
	}
	lat, runTime, received, err := latency(lines(text))
	if err != nil {
		return s, err
	}
	if lat != nil {
		s.Latency = lat
		if runTime > 0 {
			s.TransactionsPerSec = float64(received) / runTime
		}
		return s, nil
	}
	for _, l := range lines(text) {
		if m := bandRe.FindStringSubmatch(l); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return s, fmt.Errorf("sockperf output: %q: %w", l, err)
			}
			// sockperf's MBps is bytes / 1024 / 1024 and its Mbps that
			// times 8 (stream_statistics), so its Mbit is 2^20 bits.
			scale := float64(1 << 20)
			if m[2] == "G" {
				scale *= 1000 // --giga-size: MBps / 1000
			}
			s.ThroughputBps = v * scale
			s.SenderBps = s.ThroughputBps
			return s, nil
		}
	}
	return s, errors.New("sockperf output: no latency statistics and no bandwidth summary")
}

// latency reads the statistics of a latency run: nil when there are none.
func latency(ls []string) (lat *bench.LatencySample, runTime float64, received int64, err error) {
	l := bench.LatencySample{}
	seen := false
	num := func(s string) float64 {
		v, e := strconv.ParseFloat(s, 64)
		if e != nil && err == nil {
			err = fmt.Errorf("sockperf output: number %q: %w", s, e)
		}
		return v
	}
	for _, line := range ls {
		if m := validRe.FindStringSubmatch(line); m != nil {
			runTime, received = num(m[1]), int64(num(m[3]))
		} else if m := avgRe.FindStringSubmatch(line); m != nil {
			if m[1] != "rtt" {
				return nil, 0, 0, errors.New("sockperf output: one-way latency (a run without --full-rtt, half the round trip); lab records round trips")
			}
			l.MeanUs, l.StdevUs, seen = num(m[2]), num(m[3]), true
		} else if m := totalRe.FindStringSubmatch(line); m != nil {
			l.Count = int64(num(m[1]))
		} else if m := obsRe.FindStringSubmatch(line); m != nil {
			if m[1] == "MAX" {
				l.MaxUs = num(m[2])
			} else {
				l.MinUs = num(m[2])
			}
		} else if m := pctRe.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "50.000":
				l.P50Us = num(m[2])
			case "90.000":
				l.P90Us = num(m[2])
			case "99.000":
				l.P99Us = num(m[2])
			}
		}
	}
	if err != nil || !seen {
		return nil, 0, 0, err
	}
	if l.Count == 0 || l.P50Us == 0 {
		return nil, 0, 0, errors.New("sockperf output: an average but no percentiles (output cut short?)")
	}
	return &l, runTime, received, nil
}
