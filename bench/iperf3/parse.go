package iperf3

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lab-bench/lab/bench"
)

// report is the part of iperf3's -J output (client side) that Parse reads.
type report struct {
	Error string `json:"error"`
	Start struct {
		Version       string `json:"version"`
		TCPMSSDefault int    `json:"tcp_mss_default"`
		TestStart     struct {
			Protocol string `json:"protocol"`
			Reverse  int    `json:"reverse"`
		} `json:"test_start"`
	} `json:"start"`
	Intervals []struct {
		Streams []struct {
			SndCwnd int64   `json:"snd_cwnd"`
			RTT     float64 `json:"rtt"`
		} `json:"streams"`
		Sum struct {
			Start         float64 `json:"start"`
			End           float64 `json:"end"`
			BitsPerSecond float64 `json:"bits_per_second"`
			Retransmits   int64   `json:"retransmits"`
			Omitted       bool    `json:"omitted"`
		} `json:"sum"`
	} `json:"intervals"`
	End struct {
		Streams []struct {
			Sender   *summary `json:"sender"`
			Receiver *summary `json:"receiver"`
			UDP      *summary `json:"udp"`
		} `json:"streams"`
		Sum         *summary `json:"sum"` // UDP
		SumSent     *summary `json:"sum_sent"`
		SumReceived *summary `json:"sum_received"`
		// --bidir: the server-to-client direction's sums (iperf_api.c
		// names the "reverse" channel's sums so, on both ends).
		SumReceivedBidirReverse *summary `json:"sum_received_bidir_reverse"`
		CPU                     struct {
			HostTotal   float64 `json:"host_total"`
			RemoteTotal float64 `json:"remote_total"`
		} `json:"cpu_utilization_percent"`
	} `json:"end"`
}

// summary is one of iperf3's end-of-test sums.
type summary struct {
	BitsPerSecond float64 `json:"bits_per_second"`
	Retransmits   int64   `json:"retransmits"`
	LostPercent   float64 `json:"lost_percent"`
	JitterMs      float64 `json:"jitter_ms"`
	Packets       int64   `json:"packets"`
	LostPackets   int64   `json:"lost_packets"`
	Seconds       float64 `json:"seconds"`
	// Sender is true when the reporting host (the client) sent the data.
	Sender *bool `json:"sender"`
}

// Parse reads the client's JSON in raw. Throughput is what the receiver
// got (sum_received), whichever end sent; with -R the client is the
// receiver, so iperf3's host/remote CPU figures swap roles. UDP runs also
// carry loss, jitter and the datagram count and rate (end.sum). Every
// interval report becomes an Interval (throughput, retransmits, the
// sender's cwnd and RTT when the client sends). The system-wide CPU figures are copied
// from raw.
func (r *Runner) Parse(raw bench.Raw) (bench.Sample, error) {
	var rep report
	if err := json.Unmarshal([]byte(raw.Client), &rep); err != nil {
		return bench.Sample{}, fmt.Errorf("iperf3 client output: %w", err)
	}
	if rep.Error != "" {
		return bench.Sample{}, fmt.Errorf("iperf3: %s", rep.Error)
	}
	e := rep.End
	if e.SumSent == nil || e.SumReceived == nil {
		return bench.Sample{}, errors.New("iperf3 client output: no end.sum_sent / end.sum_received")
	}
	s := bench.Sample{
		ThroughputBps: e.SumReceived.BitsPerSecond,
		SenderBps:     e.SumSent.BitsPerSecond,
		Retransmits:   e.SumSent.Retransmits,
		ServerCPU:     raw.ServerCPU,
		ClientCPU:     raw.ClientCPU,
		Version:       rep.Start.Version,
		MSS:           rep.Start.TCPMSSDefault,
	}
	if r := e.SumReceivedBidirReverse; r != nil {
		s.ReverseBps = r.BitsPerSecond
	}
	clientSends := rep.Start.TestStart.Reverse == 0
	if e.SumSent.Sender != nil {
		clientSends = *e.SumSent.Sender
	}
	// end.cpu_utilization_percent is each iperf3 process's own user and
	// system time over the test's wall time (iperf_api.c: cpu_util, from
	// getrusage(RUSAGE_SELF)), in percent of one CPU.
	s.ToolCPUScope = "process"
	if clientSends {
		s.ToolCPUSender, s.ToolCPUReceiver = e.CPU.HostTotal, e.CPU.RemoteTotal
	} else {
		s.ToolCPUSender, s.ToolCPUReceiver = e.CPU.RemoteTotal, e.CPU.HostTotal
	}
	for _, st := range e.Streams {
		// Under --bidir, half the streams carry the other direction: each
		// end-of-test summary says whether the client sent it.
		if st.Receiver != nil && st.Receiver.Sender != nil && *st.Receiver.Sender != clientSends {
			continue
		}
		switch {
		case st.Receiver != nil:
			ss := bench.StreamSample{ThroughputBps: st.Receiver.BitsPerSecond}
			if st.Sender != nil {
				ss.Retransmits = st.Sender.Retransmits
			}
			s.Streams = append(s.Streams, ss)
		case st.UDP != nil:
			s.Streams = append(s.Streams, bench.StreamSample{ThroughputBps: st.UDP.BitsPerSecond})
		}
	}
	for _, in := range rep.Intervals {
		iv := bench.Interval{Start: in.Sum.Start, End: in.Sum.End, Bps: in.Sum.BitsPerSecond,
			Retransmits: in.Sum.Retransmits, Omitted: in.Sum.Omitted}
		var rtt float64
		var n int
		for _, st := range in.Streams {
			iv.CwndBytes += st.SndCwnd
			if st.RTT > 0 {
				rtt += st.RTT
				n++
			}
		}
		if n > 0 {
			iv.RTTUs = rtt / float64(n)
		}
		s.Intervals = append(s.Intervals, iv)
	}
	if udp := e.Sum; udp != nil && rep.Start.TestStart.Protocol == "UDP" {
		s.LossPct, s.JitterMs = udp.LostPercent, udp.JitterMs
		s.Packets, s.LostPackets = udp.Packets, udp.LostPackets
		if udp.Seconds > 0 {
			s.PacketsPerSec = float64(udp.Packets) / udp.Seconds
		}
	}
	if rep.Start.TestStart.Protocol == "UDP" {
		s.ReceiverIntervals = receiverIntervals(raw.Server)
	}
	if err := bench.CheckSample(s); err != nil {
		return bench.Sample{}, fmt.Errorf("iperf3 client output: %w", err)
	}
	return s, nil
}
