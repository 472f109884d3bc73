package verdicts

import "encoding/json"

// orNull is v, or nil (JSON null) when v is infinite or NaN, which
// encoding/json refuses ("unsupported value: +Inf").
func orNull(v float64) *float64 {
	if !isFinite(v) {
		return nil
	}
	return &v
}

// anyInfinite reports whether any of vs is infinite or NaN.
func anyInfinite(vs ...float64) bool {
	for _, v := range vs {
		if !isFinite(v) {
			return true
		}
	}
	return false
}

// MarshalJSON encodes a check with null for a value that is not finite
// (with the note "overflow"), so that `check -json` always encodes.
func (c Check) MarshalJSON() ([]byte, error) {
	type plain Check
	if !anyInfinite(c.Value, c.Low, c.High, c.Published, c.Margin) {
		return json.Marshal(plain(c))
	}
	out := struct {
		plain
		Value    *float64 `json:"value"`
		Low      *float64 `json:"low"`
		High     *float64 `json:"high"`
		Overflow string   `json:"overflow,omitempty"`
	}{plain: plain(c), Value: orNull(c.Value), Low: orNull(c.Low), High: orNull(c.High),
		Overflow: "a value is beyond float64 (infinite or undefined) and is null here"}
	if anyInfinite(c.Published, c.Margin) {
		out.Published, out.Margin = 0, 0
	}
	return json.Marshal(out)
}

// MarshalJSON encodes a comparison with null for a number that is not
// finite (with the note "overflow"), so that `compare -json` always
// encodes.
func (d Delta) MarshalJSON() ([]byte, error) {
	type plain Delta
	if !anyInfinite(d.Diff, d.DiffLow, d.DiffHigh, d.RelDiff, d.T, d.DF, d.P, d.PAdjusted) {
		return json.Marshal(plain(d))
	}
	out := struct {
		plain
		Diff      *float64 `json:"diff_bps"`
		DiffLow   *float64 `json:"diff_low_bps"`
		DiffHigh  *float64 `json:"diff_high_bps"`
		RelDiff   *float64 `json:"rel_diff"`
		T         *float64 `json:"t"`
		DF        *float64 `json:"df"`
		P         *float64 `json:"p"`
		PAdjusted *float64 `json:"p_adjusted"`
		Overflow  string   `json:"overflow,omitempty"`
	}{plain: plain(d), Diff: orNull(d.Diff), DiffLow: orNull(d.DiffLow), DiffHigh: orNull(d.DiffHigh), RelDiff: orNull(d.RelDiff),
		T: orNull(d.T), DF: orNull(d.DF), P: orNull(d.P), PAdjusted: orNull(d.PAdjusted),
		Overflow: "a number is beyond float64 (infinite or undefined) and is null here"}
	return json.Marshal(out)
}
