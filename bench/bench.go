// Package bench holds what every benchmark runner shares: the endpoints a
// run goes between, its parameters, the parsed sample and system-wide CPU
// sampling. Runners live in sub-packages (bench/iperf3, later iperf2, netperf).
package bench

import (
	"context"
	"time"

	"github.com/lab-bench/lab/guest"
)

// Endpoint is one end of a benchmark run.
type Endpoint struct {
	T guest.Transport
	// Addr is the end's address on the link joining the pair.
	Addr string
	// CPUs are the CPUs the end's benchmark processes are pinned to (empty:
	// not pinned; CPU is then sampled over all CPUs).
	CPUs []int
}

// Params are one run's benchmark parameters.
type Params struct {
	Tool     string        `json:"tool"` // "iperf3"
	Duration time.Duration `json:"duration"`
	Omit     time.Duration `json:"omit,omitempty"`
	Parallel int           `json:"parallel,omitempty"`
	Reverse  bool          `json:"reverse,omitempty"`
	// Length is the read/write buffer length ("128K"), empty for the default.
	Length  string `json:"length,omitempty"`
	UDP     bool   `json:"udp,omitempty"`
	Bitrate string `json:"bitrate,omitempty"` // "1G", UDP or paced TCP
	// CongestionControl is selected per socket (iperf3 -C) when set.
	CongestionControl string `json:"congestion_control,omitempty"`
	Port              int    `json:"port,omitempty"` // 0: the runner picks one
}

// Raw is what a run produced, kept verbatim in the results record.
type Raw struct {
	Client    string    `json:"client"`
	Server    string    `json:"server,omitempty"`
	ServerCPU CPUUsage  `json:"server_cpu"`
	ClientCPU CPUUsage  `json:"client_cpu"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
}

// CPUUsage is system-wide CPU use on one end during a run, over the end's
// CPUs (softirq included), as fractions of those CPUs' time in percent.
type CPUUsage struct {
	CPUs    []int   `json:"cpus,omitempty"`
	Busy    float64 `json:"busy_pct"`
	User    float64 `json:"user_pct"`
	System  float64 `json:"system_pct"`
	SoftIRQ float64 `json:"softirq_pct"`
	IRQ     float64 `json:"irq_pct"`
}

// Sample is one parsed run.
type Sample struct {
	// ThroughputBps is what the receiver got, in bits per second.
	ThroughputBps float64        `json:"throughput_bps"`
	SenderBps     float64        `json:"sender_bps"`
	Retransmits   int64          `json:"retransmits"`
	Streams       []StreamSample `json:"streams,omitempty"`
	// Tool CPU as the tool reports it (process only) in percent.
	ToolCPUSender   float64  `json:"tool_cpu_sender_pct"`
	ToolCPUReceiver float64  `json:"tool_cpu_receiver_pct"`
	ServerCPU       CPUUsage `json:"server_cpu"`
	ClientCPU       CPUUsage `json:"client_cpu"`
	// LossPct and JitterMs are set for UDP runs.
	LossPct  float64 `json:"loss_pct,omitempty"`
	JitterMs float64 `json:"jitter_ms,omitempty"`
	Version  string  `json:"tool_version,omitempty"`
	MSS      int     `json:"mss,omitempty"`
}

// StreamSample is one stream of a parallel run.
type StreamSample struct {
	ThroughputBps float64 `json:"throughput_bps"`
	Retransmits   int64   `json:"retransmits"`
}

// Runner runs one benchmark between two endpoints and parses its output.
type Runner interface {
	Run(ctx context.Context, server, client Endpoint, p Params) (Raw, error)
	Parse(raw Raw) (Sample, error)
}
