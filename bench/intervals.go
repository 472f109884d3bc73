package bench

// IntervalRow is one reporting interval of one stream, or of all streams
// together (Stream "sum"), as one end's tool reported it: a row of the
// per-interval export (`lab report -format intervals-csv`).
type IntervalRow struct {
	// Host is the end whose tool printed the row: "client" or "server".
	Host string `json:"host"`
	// Role is what that end did in the run: "sender" or "receiver".
	Role string `json:"role"`
	// Stream is the tool's stream id (iperf3: the socket number) or "sum".
	Stream string `json:"stream"`
	// StartS and EndS are seconds since the test started.
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	Bytes  int64   `json:"bytes"`
	Bps    float64 `json:"bits_per_second"`
	// Retransmits, CwndBytes and RTTUs are a TCP sender's.
	Retransmits int64   `json:"retransmits,omitempty"`
	CwndBytes   int64   `json:"snd_cwnd_bytes,omitempty"`
	RTTUs       float64 `json:"rtt_us,omitempty"`
	// Packets counts a UDP interval's datagrams; LostPackets and JitterMs
	// are the receiver's.
	Packets     int64   `json:"packets,omitempty"`
	LostPackets int64   `json:"lost_packets,omitempty"`
	JitterMs    float64 `json:"jitter_ms,omitempty"`
	// Omitted marks an interval inside iperf3's -O period.
	Omitted bool `json:"omitted,omitempty"`
}

// SampleIntervals are the rows a tool without its own Tool.Intervals
// gives: the parsed run's Sample.Intervals, all streams together, as the
// client's tool reported them; role is the client's ("sender" unless the
// run was reversed).
func SampleIntervals(s Sample, role string) []IntervalRow {
	var rows []IntervalRow
	for _, in := range s.Intervals {
		rows = append(rows, IntervalRow{Host: "client", Role: role, Stream: "sum", StartS: in.Start, EndS: in.End,
			Bps: in.Bps, Bytes: int64(in.Bps * (in.End - in.Start) / 8), Retransmits: in.Retransmits,
			CwndBytes: in.CwndBytes, RTTUs: in.RTTUs, Omitted: in.Omitted})
	}
	return rows
}
