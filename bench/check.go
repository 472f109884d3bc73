package bench

import (
	"encoding/json"
	"fmt"
)

// CheckSample reports what makes a parsed sample unfit to store: a value
// that JSON cannot hold (NaN, ±Inf, which would make the result file
// fail to write and the measurement be lost) or a negative rate. The
// parsers' fuzz tests hold every sample they accept to it.
func CheckSample(s Sample) error {
	if _, err := json.Marshal(s); err != nil {
		return fmt.Errorf("sample cannot be stored: %w", err)
	}
	rates := []struct {
		name string
		v    float64
	}{{"throughput", s.ThroughputBps}, {"sender", s.SenderBps}, {"reverse", s.ReverseBps}}
	for _, r := range rates {
		if r.v < 0 {
			return fmt.Errorf("negative %s rate %g", r.name, r.v)
		}
	}
	return nil
}
