package iperf3

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lab-bench/lab/bench"
)

// intervalsReport is the part of iperf3's -J output the per-interval
// export reads, from either end: iperf_api.c's iperf_print_intermediate
// writes, per interval, "streams" (one object per stream: "socket",
// "start", "end", "bytes", "bits_per_second", "omitted", "sender", and a
// TCP sender's "retransmits", "snd_cwnd", "rtt" in µs; a UDP stream's
// "packets", and at the receiver "jitter_ms", "lost_packets") and "sum"
// with the same fields summed (iperf 3.12's output in testdata/ shows
// each).
type intervalsReport struct {
	Intervals []struct {
		Streams []intervalJSON `json:"streams"`
		Sum     intervalJSON   `json:"sum"`
	} `json:"intervals"`
}

type intervalJSON struct {
	Socket      int     `json:"socket"`
	Start       float64 `json:"start"`
	End         float64 `json:"end"`
	Bytes       int64   `json:"bytes"`
	Bps         float64 `json:"bits_per_second"`
	Retransmits int64   `json:"retransmits"`
	SndCwnd     int64   `json:"snd_cwnd"`
	RTT         float64 `json:"rtt"`
	Packets     int64   `json:"packets"`
	LostPackets int64   `json:"lost_packets"`
	JitterMs    float64 `json:"jitter_ms"`
	Omitted     bool    `json:"omitted"`
	Sender      *bool   `json:"sender"`
}

// Intervals reads every interval of every stream, and their sums, from
// both ends' -J outputs of a run (the server's when it was kept): the
// rows of the per-interval export. Each row's role is the "sender" flag
// iperf3 wrote (3.1 and later); without it, the client is the sender
// unless the run was reversed, which the client's rows alone cannot
// tell, so they say "sender".
func Intervals(raw bench.Raw) ([]bench.IntervalRow, error) {
	var rows []bench.IntervalRow
	for _, end := range []struct{ host, out string }{{"client", raw.Client}, {"server", raw.Server}} {
		if end.out == "" {
			continue
		}
		var rep intervalsReport
		if err := json.Unmarshal([]byte(end.out), &rep); err != nil {
			return nil, fmt.Errorf("iperf3 %s output: %w", end.host, err)
		}
		for _, in := range rep.Intervals {
			for _, st := range in.Streams {
				rows = append(rows, intervalRow(end.host, strconv.Itoa(st.Socket), st))
			}
			rows = append(rows, intervalRow(end.host, "sum", in.Sum))
		}
	}
	return rows, nil
}

func intervalRow(host, stream string, in intervalJSON) bench.IntervalRow {
	role := "sender"
	if in.Sender != nil && !*in.Sender || in.Sender == nil && host == "server" {
		role = "receiver"
	}
	return bench.IntervalRow{Host: host, Role: role, Stream: stream, StartS: in.Start, EndS: in.End, Bytes: in.Bytes, Bps: in.Bps,
		Retransmits: in.Retransmits, CwndBytes: in.SndCwnd, RTTUs: in.RTT, Packets: in.Packets,
		LostPackets: in.LostPackets, JitterMs: in.JitterMs, Omitted: in.Omitted}
}
