package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// The counters read before and after each run reach its record as
// differences, per end; an end whose read fails gets a warning naming it
// and the command (by its name, not its script), and the run still counts.
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
					// As guest/linux.ReadCounters: a sh -c script with a name.
					Read: func(iface string) guest.Cmd {
						return guest.Cmd{Argv: []string{"sh", "-c", "echo '#snmp'; cat /proc/net/snmp # " + iface}, Name: "read-counters " + iface}
					},
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
				if ev.Type == EvWarning && strings.Contains(ev.Message, "/proc/net/snmp") {
					t.Errorf("warning %q prints the script, not the command's name", ev.Message)
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

// gatingRunner is a runner that, like iperf3's, waits at the run's start
// gate once its server listens and before its client starts
// (bench.StartGater); listening is closed when its server would listen,
// and readsAtClient is how many counter reads had finished when its
// client started.
type gatingRunner struct {
	fakeRunner
	listening     chan struct{}
	reads         *atomic.Int64
	readsAtClient *atomic.Int64
}

func (r gatingRunner) GatesStart() bool { return true }

func (r gatingRunner) Run(ctx context.Context, s, c bench.Endpoint, p bench.Params) (bench.Raw, error) {
	close(r.listening)
	if err := bench.AwaitStart(ctx); err != nil {
		return bench.Raw{}, err
	}
	r.readsAtClient.Store(r.reads.Load())
	return bench.Raw{Client: "ok"}, nil
}

// The counters' first reading is taken while the benchmark's server
// starts, not before it: a read that finishes only once the server
// listens does not hold the server up, and the client still starts only
// after both ends' readings. With a background load the reading stays
// before the load (and so before the server).
func TestCountersReadWhileTheServerStarts(t *testing.T) {
	prov := newFake()
	e, res, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	listening := make(chan struct{})
	var reads, readsAtClient atomic.Int64
	e.Runner = func(string) (bench.Runner, error) {
		return gatingRunner{listening: listening, reads: &reads, readsAtClient: &readsAtClient}, nil
	}
	var blocked atomic.Int64
	e.Counters = func(string) guest.Counters {
		return guest.Counters{
			Read: func(iface string) guest.Cmd { return guest.Cmd{Argv: []string{"read-counters", iface}} },
			Parse: func(string) (guest.CounterSnapshot, error) {
				select {
				case <-listening:
				case <-time.After(5 * time.Second):
					blocked.Add(1) // read before the server was started: the run waited for it
				}
				reads.Add(1)
				return guest.CounterSnapshot{TCP: map[string]int64{guest.CounterOutSegments: reads.Load()}}, nil
			},
		}
	}
	if _, err := e.Apply(context.Background(), context.Background(), testPlan(1, 1500)); err != nil {
		t.Fatal(err)
	}
	if len(res.recs) != 1 || res.recs[0].Error != "" || res.recs[0].Counters == nil {
		t.Fatalf("records %+v", res.recs)
	}
	if n := blocked.Load(); n != 0 {
		t.Errorf("%d counter reads came before the server started", n)
	}
	if n := readsAtClient.Load(); n != 2 {
		t.Errorf("the client started after %d counter reads, want both ends' first (2)", n)
	}
}
