package iperf2

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/bench"
)

// Report is one bandwidth line of iperf 2's human-readable output:
//
//	[  1] 0.0000-1.0000 sec  3.47 GBytes  29.8 Gbits/sec  3553/0   0   4187K/105(129) us  35481815
//	[SUM] 0.0-10.3 sec  739 MBytes  600 Mbits/sec
type Report struct {
	ID        string  // "1", "SUM"
	Start     float64 // seconds
	End       float64
	Bytes     float64
	Bps       float64
	Direction string // "send" or "recv"
	// Enhanced (-e) columns of a sender's line; zero when absent.
	Writes, WriteErrs, Retries int64
	CwndBytes                  int64
	RTTMicros                  float64
	// Bounceback is set on the reports of a --bounceback test.
	Bounceback *Bounceback
}

// Output is what Parse reads from one iperf 2 client output.
type Output struct {
	Port              int    // the test's TCP port, from the header
	CongestionControl string // "TCP congestion control set to/using X"
	WriteBuffer       int64  // bytes
	MSS               int
	Reports           []Report
	// Histogram is the last round-trip histogram of a bounceback test.
	Histogram *Histogram
}

var (
	reportRE = regexp.MustCompile(`^\[\s*(\d+|SUM)\]\s+(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s+sec\s+([\d.]+)\s+([KMGT]?)Bytes\s+([\d.]+)\s+([kKMGT]?)bits/sec(.*)$`)
	connRE   = regexp.MustCompile(`^\[\s*(\d+)\]\s+local\s+\S+\s+port\s+(\d+)\s+connected with\s+\S+\s+port\s+(\d+)`)
	mssRE    = regexp.MustCompile(`icwnd/mss/irtt=\d+/(\d+)/|MSS size (\d+) bytes`)
	portRE   = regexp.MustCompile(`(?:connecting to \S+, TCP port|listening on TCP port)\s+(\d+)`)
	ccLineRE = regexp.MustCompile(`TCP congestion control (?:set to|using) (\S+)`)
	wbufRE   = regexp.MustCompile(`Write buffer size:\s+(\d+) Byte`)
	writesRE = regexp.MustCompile(`^\s*(\d+)/(\d+)(?:\s+(\d+))?(?:\s+(\d+)K/(\d+)(?:\(\d+\))?\s*us)?`)
	readsRE  = regexp.MustCompile(`^\s*\d+=`)
	// tagRE finds report tags that seeds flattened onto one line.
	tagRE = regexp.MustCompile(`\s+(\[\s*(?:\d+|SUM|ID|CT)\])`)
)

// normalize puts every "[ n]" report on its own line: some published
// output (seed 003) lost its line breaks.
func normalize(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = tagRE.ReplaceAllString(l, "\n$1")
		l = strings.ReplaceAll(l, "------------------------------------------------------------", "\n")
		lines = append(lines, strings.Split(l, "\n")...)
	}
	return lines
}

// ParseOutput reads iperf 2 client (or server) text. A report's direction
// comes from its -e columns ("W/E" writes or "N=dist" reads), else from the
// stream's connection line (a stream whose local port is the test port was
// accepted: it receives), else from the last "[ ID]" header; plain output
// with neither is a sender's.
func ParseOutput(text string) Output {
	var out Output
	recvIDs := map[string]bool{}
	dir := "send"
	for _, raw := range normalize(text) {
		line := strings.TrimSpace(raw)
		if m := portRE.FindStringSubmatch(line); m != nil && out.Port == 0 {
			out.Port, _ = strconv.Atoi(m[1])
		}
		if m := ccLineRE.FindStringSubmatch(line); m != nil {
			out.CongestionControl = m[1]
		}
		if m := wbufRE.FindStringSubmatch(line); m != nil {
			out.WriteBuffer, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if mm := mssRE.FindStringSubmatch(line); mm != nil && out.MSS == 0 {
			out.MSS, _ = strconv.Atoi(mm[1] + mm[2])
		}
		if m := connRE.FindStringSubmatch(line); m != nil {
			local, _ := strconv.Atoi(m[2])
			recvIDs[m[1]] = out.Port != 0 && local == out.Port
			continue
		}
		if strings.HasPrefix(line, "[ ID]") {
			dir = "send"
			if strings.Contains(line, "Reads") {
				dir = "recv"
			}
			continue
		}
		if h := parseHistogram(line); h != nil {
			out.Histogram = h
			continue
		}
		m := reportRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		r := Report{ID: m[1], Direction: dir}
		r.Start, _ = strconv.ParseFloat(m[2], 64)
		r.End, _ = strconv.ParseFloat(m[3], 64)
		b, _ := strconv.ParseFloat(m[4], 64)
		r.Bytes = b * binaryUnit(m[5])
		bps, _ := strconv.ParseFloat(m[6], 64)
		r.Bps = math.Round(bps * decimalUnit(m[7]))
		rest := m[8]
		switch {
		case bbRE.MatchString(rest):
			r.Direction = "send"
			r.Bounceback = parseBounceback(rest)
		case readsRE.MatchString(rest):
			r.Direction = "recv"
		case writesRE.MatchString(rest):
			r.Direction = "send"
			w := writesRE.FindStringSubmatch(rest)
			r.Writes, _ = strconv.ParseInt(w[1], 10, 64)
			r.WriteErrs, _ = strconv.ParseInt(w[2], 10, 64)
			r.Retries, _ = strconv.ParseInt(w[3], 10, 64)
			if w[4] != "" {
				k, _ := strconv.ParseInt(w[4], 10, 64)
				r.CwndBytes = k * 1024
				r.RTTMicros, _ = strconv.ParseFloat(w[5], 64)
			}
		default:
			if recv, ok := recvIDs[r.ID]; ok {
				r.Direction = map[bool]string{true: "recv", false: "send"}[recv]
			}
		}
		out.Reports = append(out.Reports, r)
	}
	return out
}

func binaryUnit(p string) float64 {
	return map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[p]
}

func decimalUnit(p string) float64 {
	return map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[p]
}

// errNoReports means the client printed no bandwidth line: it did not
// connect (iperf 2 then still exits 0, with the reason on stderr).
var errNoReports = errors.New("iperf: no bandwidth report in the client output")

// Parse reads the client's output in raw. Each stream's last report is
// its total; the [SUM] line's, when there is one, is the total of all
// streams. Throughput is the client's send direction (what it wrote and
// TCP delivered); the opposite direction of -d / -r goes to ReverseBps.
// A --bounceback test also gives round-trip latency (mean, min, max and
// stdev as iperf measured them; p50/p90/p99 read from its histogram) and
// transactions per second (round trips over the test's duration).
func (r *Runner) Parse(raw bench.Raw) (bench.Sample, error) {
	out := ParseOutput(raw.Client)
	s, err := Summarize(out)
	if err != nil {
		return s, err
	}
	s.ServerCPU, s.ClientCPU = raw.ServerCPU, raw.ClientCPU
	s.Version = raw.Version
	if err := bench.CheckSample(s); err != nil {
		return bench.Sample{}, fmt.Errorf("%s output: %w", "iperf2", err)
	}
	return s, nil
}

// Summarize turns parsed reports into a sample.
func Summarize(out Output) (bench.Sample, error) {
	s := bench.Sample{CongestionControl: out.CongestionControl, MSS: out.MSS}
	send := totals(out.Reports, "send")
	if send.streams == nil && send.sum == nil {
		return s, errNoReports
	}
	for _, r := range send.streams {
		s.Streams = append(s.Streams, bench.StreamSample{ThroughputBps: r.Bps, Retransmits: r.Retries,
			Writes: r.Writes, WriteErrors: r.WriteErrs, CwndBytes: r.CwndBytes, RTTMicros: r.RTTMicros})
		s.ThroughputBps += r.Bps
		s.Retransmits += r.Retries
	}
	if send.sum != nil {
		s.ThroughputBps, s.Retransmits = send.sum.Bps, send.sum.Retries
	}
	s.SenderBps = s.ThroughputBps
	s.IntervalsBps = send.intervals
	for _, r := range send.series {
		s.Intervals = append(s.Intervals, bench.Interval{Start: r.Start, End: r.End, Bps: r.Bps,
			Retransmits: r.Retries, CwndBytes: r.CwndBytes, RTTUs: r.RTTMicros})
	}
	if len(send.streams) == 1 {
		if r := send.streams[0]; r.Bounceback != nil {
			s.Latency = latency(r.Bounceback, out.Histogram)
			if d := r.End - r.Start; d > 0 {
				s.TransactionsPerSec = float64(r.Bounceback.Count) / d
			}
		}
	}
	recv := totals(out.Reports, "recv")
	for _, r := range recv.streams {
		s.ReverseBps += r.Bps
	}
	if recv.sum != nil {
		s.ReverseBps = recv.sum.Bps
	}
	return s, nil
}

type dirTotals struct {
	streams   []Report // each stream's last report, in first-seen order
	sum       *Report  // the last [SUM] report
	intervals []float64
	series    []Report // the interval reports behind intervals
}

// totals picks one direction's totals and interval series: the [SUM]
// lines but the last when there are any, else the single stream's lines
// but the last.
func totals(reports []Report, dir string) dirTotals {
	var t dirTotals
	last := map[string]int{}
	var order []string
	var sums []Report
	perID := map[string][]Report{}
	for i, r := range reports {
		if r.Direction != dir {
			continue
		}
		if r.ID == "SUM" {
			sums = append(sums, r)
			continue
		}
		if _, ok := last[r.ID]; !ok {
			order = append(order, r.ID)
		}
		last[r.ID] = i
		perID[r.ID] = append(perID[r.ID], r)
	}
	for _, id := range order {
		t.streams = append(t.streams, reports[last[id]])
	}
	series := sums
	if len(sums) > 0 {
		t.sum = &sums[len(sums)-1]
	} else if len(order) == 1 {
		series = perID[order[0]]
	}
	for i := 0; i+1 < len(series); i++ {
		t.intervals = append(t.intervals, series[i].Bps)
		t.series = append(t.series, series[i])
	}
	return t
}

// describe is a one-line summary for error messages.
func describe(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		text = text[i+1:]
	}
	return fmt.Sprintf("%.200s", text)
}
