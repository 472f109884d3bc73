package netperf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/bench"
)

// Parse reads the client output in raw: OMNI keyval output (-k, what the
// runner asks for) or, for records made by hand, the classic TCP_STREAM
// table (seed 004).
func (r *Runner) Parse(raw bench.Raw) (bench.Sample, error) {
	var s bench.Sample
	var err error
	if kv := ParseKeyval(raw.Client); len(kv) > 0 {
		s, err = FromKeyval(kv)
	} else {
		s, err = ParseClassic(raw.Client)
	}
	if err != nil {
		return s, err
	}
	s.ServerCPU, s.ClientCPU = raw.ServerCPU, raw.ClientCPU
	s.Version = raw.Version
	if err := bench.CheckSample(s); err != nil {
		return bench.Sample{}, fmt.Errorf("%s output: %w", "netperf", err)
	}
	return s, nil
}

// ParseKeyval reads KEY=VALUE lines (upper-case keys); banners and
// warnings ("MIGRATED TCP STREAM TEST from …") are skipped.
func ParseKeyval(text string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || k == "" || strings.ToUpper(k) != k || strings.ContainsAny(k, " \t") {
			continue
		}
		kv[k] = strings.TrimSpace(v)
	}
	return kv
}

// unitScale converts THROUGHPUT_UNITS to bits per second ("10^6bits/s").
var unitScale = map[string]float64{
	"10^0bits/s": 1, "10^3bits/s": 1e3, "10^6bits/s": 1e6, "10^9bits/s": 1e9,
	"10^0Bytes/s": 8, "10^3Bytes/s": 8e3, "10^6Bytes/s": 8e6, "10^9Bytes/s": 8e9,
	"2^10Bytes/s": 8 << 10, "2^20Bytes/s": 8 << 20, "2^30Bytes/s": 8 << 30,
}

// FromKeyval turns OMNI keyval output into a sample. A request/response
// test (THROUGHPUT_UNITS=Trans/s) fills TransactionsPerSec and Latency.
func FromKeyval(kv map[string]string) (bench.Sample, error) {
	var s bench.Sample
	f := func(k string) float64 {
		v, _ := strconv.ParseFloat(kv[k], 64)
		return v
	}
	tp, ok := kv["THROUGHPUT"]
	if !ok {
		return s, errors.New("netperf output: no THROUGHPUT")
	}
	val, err := strconv.ParseFloat(tp, 64)
	if err != nil {
		return s, fmt.Errorf("netperf output: THROUGHPUT=%q: %w", tp, err)
	}
	units := kv["THROUGHPUT_UNITS"]
	switch scale, known := unitScale[units]; {
	case units == "Trans/s":
		s.TransactionsPerSec = val
	case known:
		s.ThroughputBps = val * scale
		s.SenderBps = s.ThroughputBps
	default:
		return s, fmt.Errorf("netperf output: unknown THROUGHPUT_UNITS %q", units)
	}
	if tr, ok := kv["TRANSACTION_RATE"]; ok && s.TransactionsPerSec == 0 {
		s.TransactionsPerSec, _ = strconv.ParseFloat(tr, 64)
	}
	if _, ok := kv["P50_LATENCY"]; ok {
		s.Latency = &bench.LatencySample{MinUs: f("MIN_LATENCY"), MeanUs: f("MEAN_LATENCY"), P50Us: f("P50_LATENCY"),
			P90Us: f("P90_LATENCY"), P99Us: f("P99_LATENCY"), MaxUs: f("MAX_LATENCY"), StdevUs: f("STDDEV_LATENCY")}
	}
	// LOCAL_CPU_UTIL and REMOTE_CPU_UTIL are the whole system's CPU use
	// (netperf measures it from /proc/stat: src/netcpu_procstat.c), not
	// netperf's own.
	s.ToolCPUSender, s.ToolCPUReceiver = f("LOCAL_CPU_UTIL"), f("REMOTE_CPU_UTIL")
	s.ToolCPUScope = "system"
	s.LocalSD, s.RemoteSD = f("LOCAL_SD"), f("REMOTE_SD")
	s.Retransmits = int64(f("LOCAL_TRANSPORT_RETRANS"))
	s.Sizes = sizes(f("LSS_SIZE_END"), f("RSR_SIZE_END"), f("LOCAL_SEND_SIZE"))
	return s, nil
}

// sizes is the sample's socket sizes, nil when the tool reported none.
func sizes(localSend, remoteRecv, message float64) *bench.SocketSizes {
	if localSend <= 0 && remoteRecv <= 0 && message <= 0 {
		return nil
	}
	return &bench.SocketSizes{LocalSend: int64(max(0, localSend)), RemoteRecv: int64(max(0, remoteRecv)), SendMessage: int64(max(0, message))}
}

// ParseClassic reads the classic TCP_STREAM result table:
//
//	Recv   Send    Send
//	Socket Socket  Message  Elapsed
//	Size   Size    Size     Time     Throughput
//	bytes  bytes   bytes    secs.    10^6bits/sec
//
//	 87380  16384  16384    10.00    9387.23
//
// The result is the first line of five numbers after the units header.
func ParseClassic(text string) (bench.Sample, error) {
	var s bench.Sample
	lines := strings.Split(text, "\n")
	scale := 0.0
	for _, line := range lines {
		f := strings.Fields(line)
		if scale == 0 {
			for _, w := range f {
				if sc, ok := map[string]float64{"10^6bits/sec": 1e6, "10^3bits/sec": 1e3, "10^9bits/sec": 1e9, "10^0bits/sec": 1}[w]; ok {
					scale = sc
				}
			}
			continue
		}
		if len(f) != 5 {
			continue
		}
		var v [5]float64
		ok := true
		for i, w := range f {
			var err error
			if v[i], err = strconv.ParseFloat(w, 64); err != nil {
				ok = false
				break
			}
		}
		if ok {
			s.ThroughputBps = v[4] * scale
			s.SenderBps = s.ThroughputBps
			s.Sizes = sizes(v[1], v[0], v[2]) // Recv Socket, Send Socket, Send Message
			return s, nil
		}
	}
	return s, errors.New("netperf output: neither keyval (THROUGHPUT=…) nor a TCP_STREAM result table")
}
