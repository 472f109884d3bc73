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
