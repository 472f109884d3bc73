package engine

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// scriptedProc is /proc as read around one run: the nth read of a file
// gets its nth text (the last one after that); a file without texts is
// absent. The formats are psi.rst's and proc(5)'s /proc/loadavg.
type scriptedProc struct {
	mu    sync.Mutex
	texts map[string][]string
	reads map[string]int
}

func (p *scriptedProc) read(path string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	texts := p.texts[path]
	if len(texts) == 0 {
		return nil, fmt.Errorf("open %s: %w", path, fs.ErrNotExist)
	}
	if p.reads == nil {
		p.reads = map[string]int{}
	}
	i := min(p.reads[path], len(texts)-1)
	p.reads[path]++
	return []byte(texts[i]), nil
}

// Every run's record carries the runner's CPU pressure and load average
// over its benchmark, read just before and just after it; a high
// pressure marks nothing (results.MarkDisturbed says why); without PSI the pressure is unknown and nothing is marked; a garbled
// file is a warning naming it, and the run still counts.
func TestEnvironmentAroundEachRun(t *testing.T) {
	psi := func(us int) string {
		return fmt.Sprintf("some avg10=0.00 avg60=0.00 avg300=0.00 total=%d\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", us)
	}
	load := func(l float64) string { return fmt.Sprintf("%.2f 1.00 1.00 3/200 4242\n", l) }
	tests := []struct {
		name      string
		texts     map[string][]string
		want      results.Environment
		disturbed string
		warning   string
	}{
		{"contended", map[string][]string{results.PressurePath: {psi(1_000_000), psi(1_000_000 + 9_400_000)}, results.LoadavgPath: {load(15), load(48)}},
			results.Environment{CPUPressure: 94, CPUPressureKnown: true, Load1Start: 15, Load1End: 48}, "", ""},
		{"quiet", map[string][]string{results.PressurePath: {psi(5), psi(5 + 200_000)}, results.LoadavgPath: {load(0.2), load(0.3)}},
			results.Environment{CPUPressure: 2, CPUPressureKnown: true, Load1Start: 0.2, Load1End: 0.3}, "", ""},
		{"no PSI", map[string][]string{results.LoadavgPath: {load(3), load(4)}},
			results.Environment{Load1Start: 3, Load1End: 4}, "", ""},
		{"garbled PSI", map[string][]string{results.PressurePath: {"some total=lots"}, results.LoadavgPath: {load(3)}},
			results.Environment{Load1Start: 3, Load1End: 3}, "", "runner environment: " + results.PressurePath + `: line 1: total="lots"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, res, events := newEngine(newFake(), fakeOS{}, fakeRunner{})
			proc := &scriptedProc{texts: tt.texts}
			t0 := time.Date(2026, 12, 5, 11, 0, 0, 0, time.UTC)
			var mu sync.Mutex
			reads := 0
			e.Environment = results.EnvProbe{ReadFile: proc.read, Now: func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				reads++
				return t0.Add(time.Duration(reads-1) * 10 * time.Second) // the benchmark took 10 s
			}}
			if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500)); err != nil {
				t.Fatal(err)
			}
			if len(res.recs) != 1 || res.recs[0].Error != "" {
				t.Fatalf("records %+v", res.recs)
			}
			rec := res.recs[0]
			if env := rec.Environment; env == nil || math.Abs(env.CPUPressure-tt.want.CPUPressure) > 1e-9 || env.CPUPressureKnown != tt.want.CPUPressureKnown ||
				env.Load1Start != tt.want.Load1Start || env.Load1End != tt.want.Load1End {
				t.Errorf("environment %+v, want %+v", env, tt.want)
			}
			if (tt.disturbed == "") != (rec.Disturbed == "") || !strings.HasPrefix(rec.Disturbed, tt.disturbed) {
				t.Errorf("disturbed %q, want %q", rec.Disturbed, tt.disturbed)
			}
			var warned []string
			for _, ev := range *events {
				if ev.Type == EvWarning {
					warned = append(warned, ev.Message)
				}
			}
			want := 0
			if tt.disturbed != "" {
				want++
			}
			if tt.warning != "" {
				want += 2 // before and after
			}
			joined := strings.Join(warned, "\n")
			if len(warned) != want || (tt.warning != "" && !strings.Contains(joined, tt.warning)) {
				t.Errorf("warnings %q, want %d (%q)", warned, want, tt.warning)
			}
		})
	}
}
