package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
)

// TestProgressLineShowsETA: off a terminal, each run's line says how long
// the apply has left.
func TestProgressLineShowsETA(t *testing.T) {
	var out bytes.Buffer
	v := NewHuman(&out, false)
	v.SetETA(&operation.ETA{Planned: []time.Duration{61 * time.Second, 61 * time.Second}})
	v.Event(engine.Event{Type: engine.EvRun, Index: 1, Total: 2, Experiment: "e", Pair: "p", Cell: "mtu=1500", Repeat: 1})
	if !strings.Contains(out.String(), "[1/2] e/p mtu=1500 #1: running  (about 2m0s left)") {
		t.Errorf("progress line: %q", out.String())
	}
}

// TestRepeatedWarningSaidOnce: a warning that comes at every run (loss-cc's
// congestion control, 12 times) is printed the first time only, and at
// the teardown once more with its count; different warnings each show
// (issue 25 §3).
func TestRepeatedWarningSaidOnce(t *testing.T) {
	var out bytes.Buffer
	v := NewHuman(&out, false)
	cc := "congestion control cubic: namespace default stays reno (not allowed in this namespace); the benchmark selects cubic per socket"
	for i := 1; i <= 12; i++ {
		v.Event(engine.Event{Type: engine.EvWarning, Address: "pair.veth.client", Message: cc})
	}
	v.Event(engine.Event{Type: engine.EvWarning, Address: "pair.veth.server", Message: cc})
	v.Event(engine.Event{Type: engine.EvTeardown})
	v.Close()
	want := "Warning: pair.veth.client: " + cc + "\n" +
		"Warning: pair.veth.server: " + cc + "\n" +
		"Warning (×12): pair.veth.client: " + cc + "\n" +
		"Tearing down…\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestResultLineShowsWhatTheRunMeasured: a latency run's line gives its
// mean round trip and transactions/s (not "0.00 Gb/s, 0 retransmits"), a
// UDP run's its loss and jitter, a TCP run's its throughput and
// retransmits, in Mb/s below 1 Gb/s (issue 25 §1).
func TestResultLineShowsWhatTheRunMeasured(t *testing.T) {
	for _, tt := range []struct {
		e    engine.Event
		want string
	}{
		{engine.Event{ThroughputBps: 19.3e6, LatencyMeanUs: 82, TransactionsPerSec: 12038.8}, ": latency 82.0 µs mean, 12039 transactions/s, CPU server 45% client 46% (3.2s)"},
		{engine.Event{ThroughputBps: 9.8e6, UDP: true, LossPct: 1.979, JitterMs: 0.004}, ": 9.8 Mb/s received, 1.98% loss, jitter 0.004 ms, CPU server 45% client 46% (3.2s)"},
		{engine.Event{ThroughputBps: 5.9e9, Retransmits: 10722}, ": 5.90 Gb/s, 10722 retransmits, CPU server 45% client 46% (3.2s)"},
	} {
		var out bytes.Buffer
		e := tt.e
		e.Type, e.Index, e.Total, e.Experiment, e.Pair, e.Cell, e.Repeat = engine.EvResult, 1, 2, "rr", "veth", "size=100", 1
		e.ServerCPU, e.ClientCPU, e.Elapsed = 45, 46, 3200*time.Millisecond
		NewHuman(&out, false).Event(e)
		if want := "[1/2] rr/veth size=100 #1" + tt.want; !strings.Contains(out.String(), want) {
			t.Errorf("result line %q, want %q", out.String(), want)
		}
	}
}
