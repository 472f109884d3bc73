package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
)

// loadRunner is a background load: its server takes 30 ms to listen, it
// waits at the start gate, then its client runs for p.Duration (scaled
// down: a second of the plan is 100 ms here) unless fail is set.
type loadRunner struct {
	fail bool
	mu   *sync.Mutex
	runs *[][2]time.Time
}

func (r loadRunner) GatesStart() bool { return true }

func (r loadRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	time.Sleep(30 * time.Millisecond)
	if r.fail {
		return bench.Raw{}, errors.New("iperf3: unable to connect to server")
	}
	// The load's client starts as it passes the gate: the time is taken
	// before, so that it happens before anything the gate releases (taken
	// after, the measured run released by it could stamp its own start a
	// few µs earlier: CI saw 32 µs).
	raw := bench.Raw{Start: time.Now(), Client: "load"}
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	time.Sleep(p.Duration / 10)
	raw.End = time.Now()
	r.mu.Lock()
	*r.runs = append(*r.runs, [2]time.Time{raw.Start, raw.End})
	r.mu.Unlock()
	return raw, nil
}

func (r loadRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 4e9}, nil
}

// TestBackgroundLoad: a run with a background load starts its measured
// client only once the load's client has started, the load outlasts the
// measurement, and the record carries the load's figures; a load that
// fails fails the run, which never runs unloaded.
func TestBackgroundLoad(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(map[bool]string{false: "load runs", true: "load fails"}[fail], func(t *testing.T) {
			var mu sync.Mutex
			var loads [][2]time.Time
			e, res, _ := newEngine(newFake(), fakeOS{}, fakeRunner{})
			load := loadRunner{fail: fail, mu: &mu, runs: &loads}
			measured := gatedRunner{flowRunner{}}
			e.Runner = func(tool string) (bench.Runner, error) {
				if tool == "load" {
					return load, nil
				}
				return measured, nil
			}
			p := testPlan(2, 1500)
			for i := range p.Groups[0].Runs {
				p.Groups[0].Runs[i].Spec.Background = &bench.Params{Tool: "load", Duration: 2 * time.Second, Parallel: 4}
			}
			_, err := e.Apply(context.Background(), context.Background(), p)
			if fail {
				if err == nil || len(res.recs) != 2 {
					t.Fatalf("err %v, %d records: want the runs failed and recorded", err, len(res.recs))
				}
				for _, r := range res.recs {
					if !strings.Contains(r.Error, "background load load") || r.Background == nil || r.Background.Error == "" || !r.Raw.Start.IsZero() {
						t.Errorf("record error %q, background %+v, measured start %v: want the run failed before measuring", r.Error, r.Background, r.Raw.Start)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.recs) != 2 || len(loads) != 2 {
				t.Fatalf("%d records, %d loads", len(res.recs), len(loads))
			}
			for i, r := range res.recs {
				b := r.Background
				if b == nil || b.Error != "" || b.Metrics.ThroughputBps != 4e9 || b.Params.Parallel != 4 {
					t.Fatalf("run %d: background %+v", i+1, b)
				}
				if l := loads[i]; !r.Raw.Start.After(l[0]) || !r.Raw.End.Before(l[1]) {
					t.Errorf("run %d: measured [%v, %v] not inside the load [%v, %v]", i+1, r.Raw.Start, r.Raw.End, l[0], l[1])
				}
			}
		})
	}
}
