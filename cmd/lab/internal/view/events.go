// Package view renders what lab's verbs show people and programs: the
// engine's events as progress lines or JSON, diagnostics as JSON, a run's
// header, a state object, a reproduction's verdicts. It writes to the
// io.Writer it is given and knows nothing of flags or exit codes.
package view

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
)

// JSON writes one JSON object per event (the -json flag).
type JSON struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSON writes events to w.
func NewJSON(w io.Writer) *JSON { return &JSON{enc: json.NewEncoder(w)} }

// Event writes e as one line of JSON.
func (v *JSON) Event(e engine.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	_ = v.enc.Encode(e)
}

// Human prints progress for people. On a terminal the line of the run
// in progress is redrawn with its elapsed time; elsewhere every event is
// one plain line.
type Human struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	live    string    // the run line being redrawn
	since   time.Time // when it started
	planned time.Duration
	index   int            // the run in progress (1-based)
	eta     *operation.ETA // nil: no overall estimate
	stop    chan struct{}
	// warned counts each warning line shown (address and message), in
	// the order first shown: a warning is printed once, and how often it
	// came is said at the teardown (or Close).
	warned map[string]int
	order  []string
}

// NewHuman prints progress to w, redrawn when tty.
func NewHuman(w io.Writer, tty bool) *Human {
	v := &Human{w: w, tty: tty, stop: make(chan struct{})}
	if tty {
		go v.tick()
	}
	return v
}

func (v *Human) tick() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-v.stop:
			return
		case <-t.C:
			v.mu.Lock()
			if v.live != "" {
				in := time.Since(v.since)
				fmt.Fprintf(v.w, "\r\x1b[K%s  %s / %s%s", v.live, in.Round(100*time.Millisecond), v.planned, v.eta.Text(v.index, in))
			}
			v.mu.Unlock()
		}
	}
}

// SetETA gives the view the overall estimate to show.
func (v *Human) SetETA(e *operation.ETA) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.eta = e
}

// Close stops redrawing, first saying how often a repeated warning came.
func (v *Human) Close() {
	v.mu.Lock()
	v.repeatedWarnings()
	v.mu.Unlock()
	select {
	case <-v.stop:
	default:
		close(v.stop)
	}
}

func (v *Human) line(s string) {
	if v.tty && v.live != "" {
		fmt.Fprint(v.w, "\r\x1b[K")
	}
	fmt.Fprintln(v.w, s)
}

// Event prints e for people.
func (v *Human) Event(e engine.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	run := fmt.Sprintf("[%d/%d] %s/%s %s #%d", e.Index, e.Total, e.Experiment, e.Pair, e.Cell, e.Repeat)
	if e.Warmup {
		run = fmt.Sprintf("[%d/%d] %s/%s %s warmup %d", e.Index, e.Total, e.Experiment, e.Pair, e.Cell, e.Repeat)
	}
	switch e.Type {
	case engine.EvCreate:
		if !v.tty {
			v.line(fmt.Sprintf("%s: creating %s", e.Address, e.Message))
		}
	case engine.EvCreated:
		v.line(fmt.Sprintf("%s: created %s (%s)", e.Address, e.Message, e.Elapsed.Round(time.Millisecond)))
	case engine.EvReuse:
		v.line(fmt.Sprintf("%s: reusing %s", e.Address, e.Message))
	case engine.EvDelete:
		if !v.tty {
			v.line(fmt.Sprintf("%s: destroying %s", e.Address, e.Message))
		}
	case engine.EvDeleted:
		v.line(fmt.Sprintf("%s: destroyed (%s)", e.Address, e.Elapsed.Round(time.Millisecond)))
	case engine.EvRun:
		v.live, v.since, v.planned, v.index = run, time.Now(), e.Duration, e.Index
		if !v.tty {
			v.line(run + ": running" + v.eta.Text(e.Index, 0))
		}
	case engine.EvResult:
		v.eta.Finished(e.Index, e.Elapsed)
		v.line(fmt.Sprintf("%s: %s, CPU server %.0f%% client %.0f%% (%s)",
			run, resultText(e), e.ServerCPU, e.ClientCPU, e.Elapsed.Round(100*time.Millisecond)))
		v.live = ""
	case engine.EvRunFailed:
		v.eta.Finished(e.Index, time.Since(v.since))
		v.line(fmt.Sprintf("%s: FAILED: %s", run, e.Message))
		v.live = ""
	case engine.EvSkipped:
		v.line(fmt.Sprintf("%s: skipped, cell %s", run, e.Message))
	case engine.EvWarning:
		v.warning(fmt.Sprintf("%s: %s", e.Address, e.Message))
	case engine.EvPathChecked:
		v.line(fmt.Sprintf("%s: %s", e.Address, e.Message))
	case engine.EvTeardown:
		v.live = ""
		v.repeatedWarnings()
		v.line("Tearing down…")
	}
}

// warning prints w the first time it comes, and counts it.
func (v *Human) warning(w string) {
	if v.warned == nil {
		v.warned = map[string]int{}
	}
	if v.warned[w] == 0 {
		v.order = append(v.order, w)
		v.line("Warning: " + w)
	}
	v.warned[w]++
}

// repeatedWarnings says once, with a count, each warning that came more
// than once since the last time it was called ("Warning (×12): …"): a
// setting the guests cannot take warns at every run, and one line says
// so as well as twelve.
func (v *Human) repeatedWarnings() {
	for _, w := range v.order {
		if n := v.warned[w]; n > 1 {
			v.line(fmt.Sprintf("Warning (×%d): %s", n, w))
		}
	}
	v.warned, v.order = nil, nil
}

// resultText is what a finished run measured, as its benchmark measures
// it: a request/response run's mean round trip and transactions/s, a UDP
// run's received rate, loss and jitter, a TCP run's throughput and
// retransmits.
func resultText(e engine.Event) string {
	switch {
	case e.LatencyMeanUs > 0 || e.TransactionsPerSec > 0:
		return fmt.Sprintf("latency %.1f µs mean, %.0f transactions/s", e.LatencyMeanUs, e.TransactionsPerSec)
	case e.UDP:
		return fmt.Sprintf("%s received, %.3g%% loss, jitter %.3f ms", rateText(e.ThroughputBps), e.LossPct, e.JitterMs)
	}
	return fmt.Sprintf("%s, %d retransmits", rateText(e.ThroughputBps), e.Retransmits)
}

// rateText is a rate in Gb/s, or in Mb/s below 1 Gb/s ("0.02 Gb/s"
// says little).
func rateText(bps float64) string {
	if bps < 1e9 {
		return fmt.Sprintf("%.1f Mb/s", bps/1e6)
	}
	return fmt.Sprintf("%.2f Gb/s", bps/1e9)
}
