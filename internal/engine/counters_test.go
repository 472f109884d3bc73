package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lab-bench/lab/guest"
)

// The counters read before and after each run reach its record as
// differences, per end; an end whose read fails gets a warning naming it
// and the command, and the run still counts.
func TestCountersAroundEachRun(t *testing.T) {
	tests := []struct {
		name     string
		fail     bool
		warnings int
	}{
		{"both ends read", false, 0},
		{"reads fail", true, 4}, // two ends, before and after
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := newFake()
			e, res, events := newEngine(prov, fakeOS{}, fakeRunner{})
			var reads atomic.Int64
			e.Counters = func(string) guest.Counters {
				return guest.Counters{
					Read: func(iface string) guest.Cmd { return guest.Cmd{Argv: []string{"read-counters", iface}} },
					Parse: func(string) (guest.CounterSnapshot, error) {
						n := reads.Add(1)
						if tt.fail {
							return guest.CounterSnapshot{}, errors.New("no Tcp: OutSegs")
						}
						// Each later read has counted 100 more segments.
						return guest.CounterSnapshot{TCP: map[string]int64{guest.CounterOutSegments: 100 * ((n + 1) / 2)},
							Facts: map[string]string{"qdisc": "noqueue"}}, nil
					},
				}
			}
			if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500)); err != nil {
				t.Fatal(err)
			}
			if len(res.recs) != 1 || res.recs[0].Error != "" {
				t.Fatalf("records %+v", res.recs)
			}
			var warned []string
			for _, ev := range *events {
				if ev.Type == EvWarning && strings.Contains(ev.Message, "counters not recorded: read-counters") {
					warned = append(warned, ev.Address)
				}
			}
			if len(warned) != tt.warnings {
				t.Errorf("%d counter warnings %q, want %d", len(warned), warned, tt.warnings)
			}
			c := res.recs[0].Counters
			if tt.fail {
				if c != nil {
					t.Errorf("counters recorded from failed reads: %+v", c)
				}
				return
			}
			if c == nil || c.Server == nil || c.Client == nil {
				t.Fatalf("counters %+v", c)
			}
			for _, s := range []*guest.CounterSnapshot{c.Server, c.Client} {
				if d := s.TCP[guest.CounterOutSegments]; d != 100 || s.Facts["qdisc"] != "noqueue" {
					t.Errorf("end's counters %+v", s)
				}
			}
		})
	}
}
