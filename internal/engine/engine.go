// Package engine executes a plan: it creates links and machines (writing
// each to state as pending before its create starts), applies every run's
// guest settings, verifies them by observation, runs the benchmark, writes
// the result, and tears down what exists — at the end, on error, and on
// cancellation — collecting every teardown error.
package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

// StateSaver persists the state after every change.
type StateSaver interface {
	Save(s *state.State) error
}

// ResultWriter stores one result record.
type ResultWriter interface {
	Write(rec results.Record) error
}

// stopRecorder is a ResultWriter that also records why an experiment with
// a budget stopped (results.Run.RecordStop), as it stops.
type stopRecorder interface {
	RecordStop(results.BudgetStop) error
}

// Engine runs plans. Fill every field before calling Apply or Destroy.
type Engine struct {
	State *state.State
	Store StateSaver
	// Providers by spec key ("local.default"), configured.
	Providers map[string]providers.Provider
	// OS returns the driver for a template's os ("linux").
	OS func(name string) (guest.OS, error)
	// Counters returns how an OS reads the counters recorded around each
	// run (guest.Driver.Counters); nil: none are read.
	Counters func(osName string) guest.Counters
	// Runner returns the runner for a benchmark tool ("iperf3").
	Runner  func(tool string) (bench.Runner, error)
	Results ResultWriter
	View    View
	// Clock tells the time for budgets (nil: time.Now).
	Clock func() time.Time
	// Parallelism bounds concurrent provider calls — creates and deletes of
	// machines and links — across all groups (default 32). Those calls are
	// almost all waiting (clone tasks, boots, DHCP leases), so the bound
	// protects the hypervisor's API rather than this machine.
	Parallelism int
	// RunsAtOnce bounds the runs in flight (a concurrent experiment's
	// flows of one cell count as one). At most 1 (the default), runs go
	// one at a time in the plan's run order. Above 1, a run starts as soon
	// as its footprint (providers.Footprint, proved by its provider just
	// before it starts) meets that of no run in flight and no earlier run
	// still waiting, so each resource's runs keep the plan's order, and a
	// run whose footprint is unknown runs alone; its record lists the runs
	// it overlapped (results.Provenance.Overlapped).
	RunsAtOnce int
	// Keep leaves machines running after apply (they stay in state).
	Keep bool
	// Provenance is copied into every record (the engine fills kernel and
	// tool version per run).
	Provenance results.Provenance
	RunID      string
	Lab        string
	// HostLock, when set, is taken around each run with its scope: on
	// this host (Capabilities.OnThisHost), so benchmarks of two labs (or
	// two checkouts of one) never overlap on its CPUs, and the run's
	// footprint as a team's runners name it (LockScope.Team), so theirs
	// never overlap on one hypervisor host. It blocks until the lock is
	// free or ctx is done.
	HostLock func(ctx context.Context, scope LockScope) (release func(), err error)
	// AfterRun, when set, sees every record after it is written; an error
	// stops the apply (which then tears down as on any error). The CLI
	// uses it to hold runs to the lock file.
	AfterRun func(results.Record) error
	// Abandon names borrowed machines (by address) to let go at teardown
	// without logging in to restore their settings — for a machine lab
	// must not log in to again (its host key changed) or cannot (it is
	// gone). What was left unrestored is reported as a warning.
	Abandon map[string]bool
	// Environment reads the runner's CPU pressure and load average just
	// before and just after each benchmark (results.Environment); its zero
	// value reads this machine's /proc.
	Environment results.EnvProbe
	// AbandonCommand, when set, is the command that abandons the machine
	// at an address, printed when a borrowed machine cannot be reached to
	// restore it.
	AbandonCommand func(address string) string

	mu        sync.Mutex // guards State and saves
	now       func() time.Time
	slotsOnce sync.Once
	slots     chan struct{}
	// overlaps is what runs at once ran together (RunsAtOnce > 1), for
	// the records; nil when runs go one at a time.
	overlaps *overlapLog
	recordMu sync.Mutex // one record written (and AfterRun seen) at a time
	// pathsChecked are the cross pairs' paths proven to carry an MTU
	// (group address and MTU; checkPath), guarded by mu.
	pathsChecked map[string]bool
}

func (e *Engine) emit(ev Event) {
	if e.View == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = e.clock()
	}
	e.View.Event(ev)
}

func (e *Engine) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// put records a resource in state and saves it.
func (e *Engine) put(r state.Resource) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = e.clock().UTC()
	}
	e.State.Put(r)
	if err := e.Store.Save(e.State); err != nil {
		return &StateSaveError{Err: err}
	}
	return nil
}

// remove drops a resource from state and saves it.
func (e *Engine) remove(address string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.State.Remove(address)
	if err := e.Store.Save(e.State); err != nil {
		return &StateSaveError{Err: err}
	}
	return nil
}

// StateSaveError is a state file that could not be written (a full disk):
// the objects lab changed meanwhile are as the provider left them, but the
// state on disk still says what it said before.
type StateSaveError struct{ Err error }

func (e *StateSaveError) Error() string {
	if strings.HasPrefix(e.Err.Error(), "save state") {
		return e.Err.Error() // the store said so already
	}
	return "save state: " + e.Err.Error()
}
func (e *StateSaveError) Unwrap() error { return e.Err }

func (e *Engine) provider(key string) (providers.Provider, error) {
	p, ok := e.Providers[key]
	if !ok {
		return nil, fmt.Errorf("provider %q is not configured", key)
	}
	return p, nil
}

// capabilities is the configured provider's capabilities by provider key.
func (e *Engine) capabilities(key string) (providers.Capabilities, bool) {
	p, ok := e.Providers[key]
	if !ok {
		return providers.Capabilities{}, false
	}
	return p.Capabilities(), true
}

func (e *Engine) parallelism() int {
	if e.Parallelism <= 0 {
		return DefaultParallelism
	}
	return e.Parallelism
}

// DefaultParallelism is the default bound on concurrent provider calls.
const DefaultParallelism = 32

// slot waits for one of the Parallelism slots for a provider call; the
// returned function gives it back.
func (e *Engine) slot(ctx context.Context) (func(), error) {
	e.slotsOnce.Do(func() { e.slots = make(chan struct{}, e.parallelism()) })
	select {
	case e.slots <- struct{}{}:
		return func() { <-e.slots }, nil
	case <-ctx.Done():
		return func() {}, ctx.Err()
	}
}
