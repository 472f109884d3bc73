package iperf2

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/bench"
)

// Bounceback is the request/response part of one report line of an
// iperf 2 --bounceback test (-e):
//
//	[  1] 0.0000-2.0094 sec  19.0 MBytes  79.3 Mbits/sec    99587=0.019/0.014/16.010/0.075 ms    0  576K/61 us    51517 rps
type Bounceback struct {
	Count                        int64
	AvgMs, MinMs, MaxMs, StdevMs float64
	RPS                          float64
}

// Histogram is iperf 2's round-trip histogram of a bounceback test
// ("BB8(f)-PDF: bin(w=100us):cnt(20)=1:19,5:1 (5.00/95.00/99.7%=1/5/5,…)"):
// Counts[k] round trips fell into bin k, which holds the times in
// ((k-1)·Width, k·Width] (the longest round trip of 16.010 ms lands in
// bin 161 at a width of 100 µs).
type Histogram struct {
	WidthUs float64
	Total   int64
	Counts  map[int]int64
	// Printed are iperf's own quantile bins: 5 %, 95 % and 99.7 %.
	Printed [3]int
}

var (
	bbRE   = regexp.MustCompile(`^\s*(\d+)=([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+)\s+ms\s+\d+\s+\S+\s*us\s+(\d+)\s+rps`)
	pdfRE  = regexp.MustCompile(`BB\d*\(f\)-PDF: bin\(w=(\d+)us\):cnt\((\d+)\)=([\d:,]+)\s+\(5\.00/95\.00/99\.7%=(\d+)/(\d+)/(\d+)`)
	pairRE = regexp.MustCompile(`^(\d+):(\d+)$`)
)

// parseBounceback reads the bounceback columns after a report's bits/sec.
func parseBounceback(rest string) *Bounceback {
	m := bbRE.FindStringSubmatch(rest)
	if m == nil {
		return nil
	}
	f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
	b := &Bounceback{AvgMs: f(2), MinMs: f(3), MaxMs: f(4), StdevMs: f(5), RPS: f(6)}
	b.Count, _ = strconv.ParseInt(m[1], 10, 64)
	return b
}

// parseHistogram reads a BB PDF line; nil when line is none or its bin
// counts do not add up to its total.
func parseHistogram(line string) *Histogram {
	m := pdfRE.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	h := &Histogram{Counts: map[int]int64{}}
	h.WidthUs, _ = strconv.ParseFloat(m[1], 64)
	h.Total, _ = strconv.ParseInt(m[2], 10, 64)
	var sum int64
	for _, kv := range strings.Split(m[3], ",") {
		p := pairRE.FindStringSubmatch(kv)
		if p == nil {
			return nil
		}
		bin, err1 := strconv.Atoi(p[1])
		n, err2 := strconv.ParseInt(p[2], 10, 64)
		if err1 != nil || err2 != nil || n < 0 {
			return nil
		}
		h.Counts[bin] += n
		sum += n
	}
	for i := range h.Printed {
		h.Printed[i], _ = strconv.Atoi(m[4+i])
	}
	if sum != h.Total || h.Total == 0 || h.WidthUs <= 0 {
		return nil
	}
	return h
}

// QuantileBin is the bin holding the q-quantile (0 < q ≤ 1): the first
// bin at which at least q of the round trips are counted (0 for an empty
// histogram).
func (h *Histogram) QuantileBin(q float64) int {
	if len(h.Counts) == 0 {
		return 0
	}
	bins := make([]int, 0, len(h.Counts))
	for b := range h.Counts {
		bins = append(bins, b)
	}
	slices.Sort(bins)
	need := int64(math.Ceil(q * float64(h.Total)))
	var cum int64
	for _, b := range bins {
		cum += h.Counts[b]
		if cum >= need {
			return b
		}
	}
	return bins[len(bins)-1]
}

// latency turns the final bounceback report and histogram into a latency
// sample: mean, min, max and stdev as iperf measured them, quantiles as
// the upper edges of their histogram bins (ResolutionUs says how coarse).
func latency(b *Bounceback, h *Histogram) *bench.LatencySample {
	l := &bench.LatencySample{MinUs: b.MinMs * 1000, MeanUs: b.AvgMs * 1000, MaxUs: b.MaxMs * 1000,
		StdevUs: b.StdevMs * 1000, Count: b.Count}
	if h != nil {
		edge := func(q float64) float64 { return float64(h.QuantileBin(q)) * h.WidthUs }
		l.P50Us, l.P90Us, l.P99Us, l.ResolutionUs = edge(0.50), edge(0.90), edge(0.99), h.WidthUs
		// A quantile cannot exceed the longest round trip.
		l.P50Us, l.P90Us, l.P99Us = math.Min(l.P50Us, l.MaxUs), math.Min(l.P90Us, l.MaxUs), math.Min(l.P99Us, l.MaxUs)
		l.Histogram = &bench.Histogram{WidthUs: h.WidthUs, Total: h.Total, Counts: h.Counts}
	}
	return l
}
