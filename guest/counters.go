package guest

import (
	"maps"
	"slices"
)

// The TCP counters lab reads on every OS, by the names records use. Each
// OS's Counters.Parse says which of its own counters each one is.
const (
	// CounterOutSegments counts the TCP segments sent.
	CounterOutSegments = "out_segments"
	// CounterRetransSegments counts the TCP segments retransmitted.
	CounterRetransSegments = "retransmitted_segments"
	// CounterTimeouts counts retransmission timeouts (RTOs).
	CounterTimeouts = "timeouts"
	// CounterRecoveries counts loss-recovery episodes (the congestion
	// events a sender entered fast recovery for).
	CounterRecoveries = "recoveries"
)

// Counters is how an OS reads the counters that explain a run: cumulative
// TCP counters and the benchmark NIC's interrupt counts, read on each end
// before and after every run (the record keeps the differences), with
// facts about the NIC and the CPUs beside them. A zero Counters: the OS
// reads none.
type Counters struct {
	// Read is the one command that prints them for the interface iface.
	Read func(iface string) Cmd
	// Parse reads Read's output.
	Parse func(out string) (CounterSnapshot, error)
}

// CounterSnapshot is what Counters.Read printed, parsed.
type CounterSnapshot struct {
	// TCP are the cumulative TCP counters by the Counter… names.
	TCP map[string]int64 `json:"tcp,omitempty"`
	// Interrupts count each interrupt source of the NIC (Linux
	// "virtio0-input.0", FreeBSD "vmx0:rxq0"), summed over CPUs.
	Interrupts map[string]int64 `json:"interrupts,omitempty"`
	// Facts are what does not count up: the qdisc, interrupt coalescing
	// and channel settings, each interrupt's CPU affinity, the CPU
	// frequency governor — what the OS could tell, by name.
	Facts map[string]string `json:"facts,omitempty"`
}

// Since is what changed from before to s: each counter's difference (a
// counter missing from before counts from 0; one that went down — a
// wrapped or reset counter — is left out), and s's facts.
func (s CounterSnapshot) Since(before CounterSnapshot) CounterSnapshot {
	diff := func(after, before map[string]int64) map[string]int64 {
		if len(after) == 0 {
			return nil
		}
		out := map[string]int64{}
		for _, k := range slices.Sorted(maps.Keys(after)) {
			if d := after[k] - before[k]; d >= 0 {
				out[k] = d
			}
		}
		return out
	}
	return CounterSnapshot{TCP: diff(s.TCP, before.TCP), Interrupts: diff(s.Interrupts, before.Interrupts), Facts: s.Facts}
}
