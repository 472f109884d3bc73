package bench

import (
	"math"
	"testing"
)

func TestCheckSample(t *testing.T) {
	tests := []struct {
		s    Sample
		want string
	}{
		{Sample{ThroughputBps: 9.4e9, SenderBps: 9.4e9}, ""},
		{Sample{}, ""},
		{Sample{ThroughputBps: math.NaN()}, "sample cannot be stored: json: unsupported value: NaN"},
		{Sample{JitterMs: math.Inf(1)}, "sample cannot be stored: json: unsupported value: +Inf"},
		{Sample{SenderBps: -1}, "negative sender rate -1"},
	}
	for _, tt := range tests {
		got := ""
		if err := CheckSample(tt.s); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckSample(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
