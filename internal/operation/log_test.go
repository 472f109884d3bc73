package operation

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/redact"
)

func TestLoggerLevelsAndRedaction(t *testing.T) {
	tests := []struct {
		env      []string
		wantErr  string
		debug    bool
		trace    bool
		redacted bool
	}{
		{env: nil},
		{env: []string{"LAB_LOG=off"}},
		{env: []string{"LAB_LOG=debug", "GOVC_PASSWORD=hunter2-vc"}, debug: true, redacted: true},
		{env: []string{"LAB_LOG=trace"}, debug: true, trace: true},
		{env: []string{"LAB_LOG=loud"}, wantErr: `LAB_LOG="loud": use error, warn, info, debug or trace (or off)`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		secrets := &redact.Set{}
		secrets.Add("GOVC_PASSWORD", EnvValue(tc.env, "GOVC_PASSWORD")) // as Main does
		log, err := NewLogger(tc.env, &buf, secrets)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("%v: err %v, want %q", tc.env, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if (log != nil) != tc.debug {
			t.Errorf("%v: logger %v", tc.env, log)
		}
		if log == nil {
			continue
		}
		secrets.Add("var", "s3cret-value") // added once the spec is loaded
		log.Debug("dial https://u:hunter2-vc@vc", "cmd", "sysctl -w x=s3cret-value", "err", errors.New("open /k/s3cret-value"))
		log.Log(t.Context(), -8, "step")
		out := buf.String()
		if strings.Contains(out, "s3cret-value") || tc.redacted && strings.Contains(out, "hunter2-vc") {
			t.Errorf("%v: secret in the log:\n%s", tc.env, out)
		}
		if !strings.Contains(out, "(sensitive value)") {
			t.Errorf("%v: nothing redacted:\n%s", tc.env, out)
		}
		if got := strings.Contains(out, "level=TRACE"); got != tc.trace {
			t.Errorf("%v: trace line shown %v, want %v:\n%s", tc.env, got, tc.trace, out)
		}
	}
}

// LAB_LOG=error, warn and info each show their level and above: the
// progress events at info, warnings at warn, errors and failed runs at
// error, and a failed provider call at warn.
func TestLoggerEventLevels(t *testing.T) {
	events := []engine.Event{
		{Type: engine.EvCreated, Address: "pair.p.server", Elapsed: 1500 * time.Millisecond},
		{Type: engine.EvWarning, Message: "congestion control cubic is the default"},
		{Type: engine.EvRunFailed, Experiment: "x", Pair: "p", Cell: "mtu=9000", Repeat: 2, Message: "iperf3 exited 1"},
		// A warm-up of repeat 1 must not read as the first measured repeat (issue 35).
		{Type: engine.EvRun, Experiment: "x", Pair: "p", Cell: "mtu=1500", Repeat: 1, Warmup: true},
	}
	tests := []struct {
		level string
		want  []string
		not   []string
	}{
		{"error", []string{`level=ERROR msg="lab event" event=run_failed experiment=x pair=p cell="mtu=9000" message="iperf3 exited 1" repeat=2`}, []string{"event=warning", "event=created"}},
		{"warn", []string{"event=run_failed", `level=WARN msg="lab event" event=warning message="congestion control cubic is the default"`}, []string{"event=created"}},
		{"info", []string{"event=run_failed", "event=warning", `level=INFO msg="lab event" event=created address=pair.p.server elapsed=1.5s`, `event=run experiment=x pair=p cell="mtu=1500" repeat=1 warmup=true`}, nil},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		log, err := NewLogger([]string{"LAB_LOG=" + tc.level}, &buf, &redact.Set{})
		if err != nil {
			t.Fatal(err)
		}
		var seen int
		v := LoggedView(engine.ViewFunc(func(engine.Event) { seen++ }), log)
		for _, e := range events {
			v.Event(e)
		}
		out := buf.String()
		if seen != len(events) {
			t.Errorf("%s: the wrapped view saw %d events, want %d", tc.level, seen, len(events))
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("LAB_LOG=%s: log lacks %s:\n%s", tc.level, w, out)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("LAB_LOG=%s: log has %s:\n%s", tc.level, n, out)
			}
		}
	}
}
