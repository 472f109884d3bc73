// Package bench holds what every benchmark runner shares: the endpoints a
// run goes between, its parameters, the parsed sample and system-wide CPU
// sampling; and the registry of tools (Tool, Register, Lookup) with the
// attribute kinds their spec blocks are built from (Block, DurationAttr, …).
// Each tool is a sub-package that registers itself (bench/iperf3,
// bench/iperf2, bench/netperf, bench/sockperf); bench/tools imports them
// all. docs/TOOLS.md walks through adding one.
package bench

import (
	"context"
	"fmt"
	"net/netip"
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
	// OS is the end's operating system, Linux or FreeBSD ("" is taken as
	// Linux, except that CPU times are then probed): it picks the commands
	// that find listening sockets, pin processes and read CPU figures.
	OS string
}

// SocketSizes are a stream test's buffer sizes in bytes as the tool
// reports them (0: not reported).
type SocketSizes struct {
	// LocalSend is the sender's socket send buffer (netperf "Send Socket
	// Size", LSS_SIZE_END).
	LocalSend int64 `json:"local_send,omitempty"`
	// RemoteRecv is the receiver's socket receive buffer (netperf "Recv
	// Socket Size", RSR_SIZE_END).
	RemoteRecv int64 `json:"remote_recv,omitempty"`
	// SendMessage is the size of each send() (netperf "Send Message
	// Size", LOCAL_SEND_SIZE; netperf's default is the send buffer's size).
	SendMessage int64 `json:"send_message,omitempty"`
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

	// Interval is the reporting interval (iperf2 -i); 0: the runner's default.
	Interval time.Duration `json:"interval,omitempty"`
	// Dualtest and Tradeoff are iperf2's bidirectional tests: -d runs both
	// directions at once, -r one after the other.
	Dualtest bool `json:"dualtest,omitempty"`
	Tradeoff bool `json:"tradeoff,omitempty"`
	// Enhanced asks iperf2 for enhanced reports (-e: retries, cwnd, RTT).
	Enhanced bool `json:"enhanced,omitempty"`
	// Bounceback is iperf2's request/response test (--bounceback): the
	// client writes Length bytes (default 100), the server writes them
	// back, back to back for Duration; it measures round-trip latency and
	// transactions per second.
	Bounceback bool `json:"bounceback,omitempty"`
	// Bind is the client's source address (iperf2 -B); empty: the client
	// end's address.
	Bind string `json:"bind,omitempty"`
	// Loopback runs server and client on the pair's server end against
	// 127.0.0.1 (seed 001's `iperf -c 127.0.0.1`); the client end is unused.
	Loopback bool `json:"loopback,omitempty"`
	// IPVersion is the IP version the run goes over: "" for IPv4 (every
	// run before ip_version existed), IPv6 or IPDual (IPv6 traffic, IPv4
	// configured as well). Runners pass their tool's IPv6 flag (iperf3
	// -6, iperf -V, netperf/netserver -6) when it is not IPv4.
	IPVersion string `json:"ip_version,omitempty"`

	// Netperf holds netperf's own parameters (Tool "netperf").
	Netperf *NetperfParams `json:"netperf,omitempty"`
	// Iperf3 holds iperf3's own parameters beyond the shared ones (nil:
	// none set).
	Iperf3 *Iperf3Params `json:"iperf3,omitempty"`
	// Sockperf holds sockperf's own parameters (Tool "sockperf"); its
	// message size is Length and its protocol UDP, as for the others.
	Sockperf *SockperfParams `json:"sockperf,omitempty"`
}

// SockperfParams are a sockperf run's parameters beyond the shared ones.
type SockperfParams struct {
	// Mode is sockperf's subcommand: "ping-pong" (default), "under-load"
	// (latency of every --reply-every'th message of a stream sent at MPS
	// messages per second) or "throughput".
	Mode string `json:"mode"`
	// MPS is under-load's message rate (--mps); 0: sockperf's default,
	// 10000.
	MPS int `json:"mps,omitempty"`
}

// Iperf3Params are iperf3's options that no other tool shares, each as
// iperf3 --help (3.12) names it.
type Iperf3Params struct {
	// Window sets both ends' socket buffer sizes (-w "256K"; the client
	// sends it to the server), and so the TCP window.
	Window string `json:"window,omitempty"`
	// MSS is the TCP maximum segment size (-M), 0: the kernel's.
	MSS int `json:"mss,omitempty"`
	// NoDelay disables Nagle's algorithm (-N).
	NoDelay bool `json:"no_delay,omitempty"`
	// ZeroCopy sends with sendfile(2) (-Z).
	ZeroCopy bool `json:"zerocopy,omitempty"`
	// DSCP is the IP DSCP (--dscp: 0–63 or a name such as "ef", "af11").
	DSCP string `json:"dscp,omitempty"`
	// FQRate paces each socket by fair queuing (--fq-rate "1G", Linux).
	FQRate string `json:"fq_rate,omitempty"`
	// Bidir runs both directions at once (--bidir): the throughput is the
	// client-to-server direction's, Sample.ReverseBps the other's.
	Bidir bool `json:"bidir,omitempty"`
}

// NetperfParams are a netperf run's test-specific parameters.
type NetperfParams struct {
	// Test is TCP_STREAM (default), TCP_RR or UDP_STREAM.
	Test string `json:"test"`
	// SendSize is the message size (-m), "" for netperf's default.
	SendSize string `json:"send_size,omitempty"`
	// SendBuffer and RecvBuffer are the socket buffers (-s / -S) asked for.
	SendBuffer string `json:"send_buffer,omitempty"`
	RecvBuffer string `json:"recv_buffer,omitempty"`
	// RequestResponse is "REQ,RESP" sizes for TCP_RR (-r).
	RequestResponse string `json:"request_response,omitempty"`
	// Confidence enables netperf's confidence intervals (-I 99,5 -i MAX,3)
	// with at most this many iterations; 0: off.
	Confidence int `json:"confidence,omitempty"`
}

// IP versions of Params.IPVersion besides IPv4 ("").
const (
	IPv6   = "6"
	IPDual = "dual"
)

// IPv6 reports whether the run goes over IPv6 (ip_version 6 or "dual").
func (p Params) IPv6() bool { return p.IPVersion == IPv6 || p.IPVersion == IPDual }

// LoopbackAddr is the loopback address of the run's IP version: ::1 for
// IPv6, 127.0.0.1 otherwise.
func (p Params) LoopbackAddr() string {
	if p.IPv6() {
		return "::1"
	}
	return "127.0.0.1"
}

// LoopbackEnds are the ends a run with p goes between: server and client
// as given or, with Loopback, the server end twice, against its loopback
// address (LoopbackAddr); the client end is then not used.
func (p Params) LoopbackEnds(server, client Endpoint) (Endpoint, Endpoint) {
	if !p.Loopback {
		return server, client
	}
	server.Addr = p.LoopbackAddr()
	return server, Endpoint{T: server.T, Addr: server.Addr, CPUs: server.CPUs, OS: server.OS}
}

// CheckFamily refuses an IPv4 server address for a run over IPv6. The
// other way round is left as it was before ip_version: a hosts machine
// given an IPv6 address runs over it.
func CheckFamily(serverAddr string, p Params) error {
	a, err := netip.ParseAddr(serverAddr)
	if err != nil {
		return nil // the runner's own check names it
	}
	if p.IPv6() && !a.Is6() {
		return fmt.Errorf("server address %s is IPv4, but the run goes over IPv6 (ip_version %s)", serverAddr, p.IPVersion)
	}
	return nil
}

// Raw is what a run produced, kept verbatim in the results record.
type Raw struct {
	Client    string    `json:"client"`
	Server    string    `json:"server,omitempty"`
	ServerCPU CPUUsage  `json:"server_cpu"`
	ClientCPU CPUUsage  `json:"client_cpu"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	// Version is the tool's version when it does not print it in its
	// output (iperf 2, netperf); runners read it before the run.
	Version string `json:"tool_version,omitempty"`
	// ServerArgv and ClientArgv are the command lines lab ran on each end
	// (CPU pinning included) for the outputs above; records written before
	// they were kept have none. A record passes through the lab's redact
	// set when written, so a sensitive value in them is not on disk.
	ServerArgv []string `json:"server_argv,omitempty"`
	ClientArgv []string `json:"client_argv,omitempty"`
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
	// Steal is the share of time the hypervisor ran something else on
	// these vCPUs while the guest wanted them (/proc/stat's steal): a
	// neighbour's load disturbing the measurement.
	Steal float64 `json:"steal_pct,omitempty"`
	// MHz is the CPUs' clock from /proc/cpuinfo when the runner read it
	// (0: unknown); with Busy and the CPU count it gives CPU cycles per bit.
	MHz float64 `json:"mhz,omitempty"`
	// NumCPUs is how many CPUs the figures cover (0: unknown).
	NumCPUs int `json:"ncpu,omitempty"`
}

// Sample is one parsed run.
type Sample struct {
	// ThroughputBps is what the receiver got, in bits per second.
	ThroughputBps float64        `json:"throughput_bps"`
	SenderBps     float64        `json:"sender_bps"`
	Retransmits   int64          `json:"retransmits"`
	Streams       []StreamSample `json:"streams,omitempty"`
	// Tool CPU as the tool reports it, in percent of one CPU: ToolCPUScope
	// says what it covers — "process" (iperf3: its own process's user and
	// system time, getrusage), "system" (netperf: the whole host's, from
	// /proc/stat) or "" (records written before the scope was kept).
	ToolCPUSender   float64  `json:"tool_cpu_sender_pct"`
	ToolCPUReceiver float64  `json:"tool_cpu_receiver_pct"`
	ToolCPUScope    string   `json:"tool_cpu_scope,omitempty"`
	ServerCPU       CPUUsage `json:"server_cpu"`
	ClientCPU       CPUUsage `json:"client_cpu"`
	// LossPct and JitterMs are set for UDP runs.
	LossPct  float64 `json:"loss_pct,omitempty"`
	JitterMs float64 `json:"jitter_ms,omitempty"`
	Version  string  `json:"tool_version,omitempty"`
	MSS      int     `json:"mss,omitempty"`

	// ReverseBps is the opposite direction's throughput in bidirectional
	// tests (iperf2 -d / -r), in bits per second.
	ReverseBps float64 `json:"reverse_bps,omitempty"`
	// IntervalsBps are the per-interval throughputs (all streams summed).
	IntervalsBps []float64 `json:"intervals_bps,omitempty"`
	// Intervals are the tool's per-interval reports (iperf3 -J; iperf 2
	// -i of a single stream), all streams together: a run's time series.
	Intervals []Interval `json:"intervals,omitempty"`
	// ReceiverIntervals are a UDP run's intervals as the receiver counted
	// them, when the tool reports the receiving end's too (iperf3's
	// server JSON); Intervals are then the rate the client sent.
	ReceiverIntervals []Interval `json:"receiver_intervals,omitempty"`
	// CongestionControl is the algorithm the tool reports in effect.
	CongestionControl string `json:"congestion_control,omitempty"`
	// Latency is set by request/response tests (netperf TCP_RR).
	Latency *LatencySample `json:"latency,omitempty"`
	// ServiceDemand is netperf's CPU service demand (µs of CPU per KB
	// transferred, or per transaction), local and remote.
	LocalSD  float64 `json:"local_sd_us_per_kb,omitempty"`
	RemoteSD float64 `json:"remote_sd_us_per_kb,omitempty"`
	// Sizes are the socket buffer and message sizes the tool says it
	// used (netperf: the classic table's "Recv Socket / Send Socket /
	// Send Message" columns, or LSS_SIZE_END, RSR_SIZE_END and
	// LOCAL_SEND_SIZE): what seed 004 swept, so the record shows whether
	// the sysctl or -s/-m really reached the socket.
	Sizes *SocketSizes `json:"socket_sizes,omitempty"`
	// TransactionsPerSec is the request/response rate (netperf TCP_RR,
	// iperf 2 --bounceback).
	TransactionsPerSec float64 `json:"transactions_per_sec,omitempty"`
	// PacketsPerSec is the UDP datagram rate the sender sent (iperf3 -u),
	// and LostPackets of Packets were not received.
	PacketsPerSec float64 `json:"packets_per_sec,omitempty"`
	Packets       int64   `json:"packets,omitempty"`
	LostPackets   int64   `json:"lost_packets,omitempty"`
	// RouterCPU is the system-wide CPU use of the router guest between
	// the ends, for pairs that go via one (set by the engine, not the
	// runner: it is sampled around the whole run).
	RouterCPU *CPUUsage `json:"router_cpu,omitempty"`
}

// LatencySample is a request/response test's round-trip latency, in
// microseconds. A quantile of 0 is unknown (the tool did not report it).
type LatencySample struct {
	MinUs   float64 `json:"min_us"`
	MeanUs  float64 `json:"mean_us,omitempty"`
	P50Us   float64 `json:"p50_us"`
	P90Us   float64 `json:"p90_us,omitempty"`
	P99Us   float64 `json:"p99_us"`
	MaxUs   float64 `json:"max_us,omitempty"`
	StdevUs float64 `json:"stdev_us,omitempty"`
	Count   int64   `json:"count,omitempty"`
	// ResolutionUs is the width of the histogram bins the quantiles were
	// read from (iperf 2: 100 µs; each quantile is its bin's upper edge,
	// so the true quantile is at most that and more than one bin below);
	// 0 when the tool computed them exactly (netperf).
	ResolutionUs float64 `json:"resolution_us,omitempty"`
	// Histogram is the round trips' histogram the quantiles were read
	// from, when the tool printed one (iperf 2's bounceback PDF line):
	// the latency CDF pools it across repeats.
	Histogram *Histogram `json:"histogram,omitempty"`
}

// Histogram is a tool's round-trip histogram: Counts[k] round trips fell
// into bin k, which holds the times in ((k-1)·WidthUs, k·WidthUs].
type Histogram struct {
	WidthUs float64       `json:"width_us"`
	Total   int64         `json:"total"`
	Counts  map[int]int64 `json:"counts"`
}

// Interval is one reporting interval of a run, all streams together.
type Interval struct {
	// Start and End are seconds since the test started.
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Bps is the interval's throughput in bits per second.
	Bps         float64 `json:"bps"`
	Retransmits int64   `json:"retransmits,omitempty"`
	// CwndBytes is the sender's congestion window summed over streams,
	// RTTUs the mean of their smoothed RTTs (sender side only).
	CwndBytes int64   `json:"cwnd_bytes,omitempty"`
	RTTUs     float64 `json:"rtt_us,omitempty"`
	// Omitted marks an interval inside iperf3's -O period.
	Omitted bool `json:"omitted,omitempty"`
}

// StreamSample is one stream of a parallel run.
type StreamSample struct {
	ThroughputBps float64 `json:"throughput_bps"`
	Retransmits   int64   `json:"retransmits"`
	// Writes and WriteErrors count the sender's write() calls (iperf2 -e).
	Writes      int64 `json:"writes,omitempty"`
	WriteErrors int64 `json:"write_errors,omitempty"`
	// CwndBytes and RTTMicros are the sender's last congestion window and
	// smoothed RTT (iperf2 -e).
	CwndBytes int64   `json:"cwnd_bytes,omitempty"`
	RTTMicros float64 `json:"rtt_us,omitempty"`
}

// Runner runs one benchmark between two endpoints and parses its output.
type Runner interface {
	Run(ctx context.Context, server, client Endpoint, p Params) (Raw, error)
	Parse(raw Raw) (Sample, error)
}
