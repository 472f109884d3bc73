package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// parseFailRunner runs but cannot parse what it ran.
type parseFailRunner struct{ fakeRunner }

func (parseFailRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{}, errors.New("no end object")
}

// stealRunner reports CPU steal above results.DisturbedSteal on the server.
type stealRunner struct{ fakeRunner }

func (stealRunner) Parse(bench.Raw) (bench.Sample, error) {
	s := bench.Sample{ThroughputBps: 1e9}
	s.ServerCPU.Steal = results.DisturbedSteal + 1
	return s, nil
}

// lateFailLoad is a background load that passes the start gate and then
// fails while the measured run is under way.
type lateFailLoad struct{}

func (lateFailLoad) GatesStart() bool { return true }
func (lateFailLoad) Run(ctx context.Context, _, _ bench.Endpoint, _ bench.Params) (bench.Raw, error) {
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	return bench.Raw{}, errors.New("iperf3: the server has terminated")
}
func (lateFailLoad) Parse(bench.Raw) (bench.Sample, error) { return bench.Sample{}, nil }

// TestRunStepFailures covers each way one run can stop between its
// configuration and its result, and the disturbed warning: the run is
// recorded with an error that names what failed.
func TestRunStepFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		runner   func(tool string) (bench.Runner, error)
		ip       string
		load     bool
		wantErr  string
		wantWarn string
	}{
		{name: "unknown tool", runner: func(tool string) (bench.Runner, error) { return nil, errors.New("no tool " + tool) },
			wantErr: "no tool"},
		{name: "no IPv6 address", ip: bench.IPv6, wantErr: "has no IPv6 address"},
		{name: "load fails during the run", load: true, wantErr: "(the measurement ran without all of its load)"},
		{name: "output does not parse", runner: func(string) (bench.Runner, error) { return parseFailRunner{}, nil },
			wantErr: "output: no end object"},
		{name: "steal marks the run disturbed", runner: func(string) (bench.Runner, error) { return stealRunner{}, nil },
			wantWarn: "disturbed: CPU steal 6.0% on the server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, res, events := newEngine(newFake(), fakeOS{}, fakeRunner{})
			if tc.runner != nil {
				e.Runner = tc.runner
			}
			if tc.load {
				e.Runner = func(tool string) (bench.Runner, error) {
					if tool == "load" {
						return lateFailLoad{}, nil
					}
					return gatedRunner{flowRunner{}}, nil
				}
			}
			p := testPlan(1, 1500)
			r := &p.Groups[0].Runs[0]
			r.Spec.Bench.IPVersion = tc.ip
			if tc.load {
				r.Spec.Background = &bench.Params{Tool: "load", Duration: 2 * time.Second}
			}
			_, err := e.Apply(context.Background(), context.Background(), p)
			if len(res.recs) != 1 {
				t.Fatalf("%d records, want 1 (err %v)", len(res.recs), err)
			}
			rec := res.recs[0]
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(rec.Error, tc.wantErr) {
					t.Fatalf("err %v, record error %q: want the run failed with %q", err, rec.Error, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range *events {
				if ev.Type == EvWarning && strings.Contains(ev.Message, tc.wantWarn) {
					if rec.Disturbed == "" {
						t.Errorf("warning %q but the record is not marked disturbed", ev.Message)
					}
					return
				}
			}
			t.Errorf("no warning containing %q in %+v", tc.wantWarn, *events)
		})
	}
}
