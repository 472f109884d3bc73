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
