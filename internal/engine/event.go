package engine

import "time"

// Event types, in the order a run usually emits them.
const (
	EvCreate    = "create"    // a machine or link create starts
	EvCreated   = "created"   // … and finished
	EvReuse     = "reuse"     // an existing machine is reused
	EvDelete    = "delete"    // a delete starts
	EvDeleted   = "deleted"   // … and finished
	EvConfigure = "configure" // settings are being applied for a run
	EvRun       = "run"       // a benchmark run starts
	EvResult    = "result"    // a run finished with a result
	EvRunFailed = "run_failed"
	EvSkipped   = "skipped" // an adaptive cell was decided: its remaining repeats do not run (Message: why)
	EvWarning   = "warning"
	// EvPathChecked: a cross pair's path carries the ends' MTU (Message
	// says which and how it was checked), before its first run of it.
	EvPathChecked = "path_checked"
	EvError       = "error"    // the apply failed (Message); teardown follows
	EvTeardown    = "teardown" // teardown of everything starts
	EvDone        = "done"
)

// Event is one step of an apply or destroy, for progress display and
// `-json` output.
type Event struct {
	Time    time.Time     `json:"time"`
	Type    string        `json:"type"`
	Address string        `json:"address,omitempty"`
	Message string        `json:"message,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	// Run fields (run, result, run_failed).
	Index      int           `json:"index,omitempty"`
	Total      int           `json:"total,omitempty"`
	Experiment string        `json:"experiment,omitempty"`
	Pair       string        `json:"pair,omitempty"`
	Cell       string        `json:"cell,omitempty"`
	Repeat     int           `json:"repeat,omitempty"`
	Warmup     bool          `json:"warmup,omitempty"`
	Duration   time.Duration `json:"duration_ns,omitempty"` // the run's planned benchmark duration
	// Result fields.
	ThroughputBps float64 `json:"throughput_bps,omitempty"`
	Retransmits   int64   `json:"retransmits,omitempty"`
	ServerCPU     float64 `json:"server_cpu_pct,omitempty"`
	ClientCPU     float64 `json:"client_cpu_pct,omitempty"`
	// LatencyMeanUs and TransactionsPerSec are a request/response run's
	// (0 for others); UDP marks a datagram run, whose LossPct and JitterMs
	// the result has.
	LatencyMeanUs      float64 `json:"latency_mean_us,omitempty"`
	TransactionsPerSec float64 `json:"transactions_per_sec,omitempty"`
	UDP                bool    `json:"udp,omitempty"`
	LossPct            float64 `json:"loss_pct,omitempty"`
	JitterMs           float64 `json:"jitter_ms,omitempty"`
}

// View receives events. It must be safe for concurrent use.
type View interface {
	Event(Event)
}

// ViewFunc adapts a function to View.
type ViewFunc func(Event)

// Event calls f.
func (f ViewFunc) Event(e Event) { f(e) }
