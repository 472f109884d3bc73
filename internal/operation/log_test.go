package operation

import (
	"bytes"
	"errors"
	"strings"
	"testing"

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
		{env: []string{"LAB_LOG=loud"}, wantErr: `LAB_LOG="loud": use debug or trace`},
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
