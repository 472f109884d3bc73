package spec

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// untilRE is the width stopping rule: the 95 % confidence interval's
// half-width relative to the mean. The other rule is untilVerdict.
var untilRE = regexp.MustCompile(`^\s*ci\s*<\s*([0-9]+(?:\.[0-9]+)?)\s*%\s*$`)

// minAdaptive is the fewest runs an adaptive cell makes: with fewer, a
// confidence interval says little and stopping on it would be luck.
const minAdaptive = 3

// untilVerdict is the stopping rule that stops a cell on the verdict of
// its throughput band (results.GroupSeqLook).
const untilVerdict = "verdict"

// decodeRepeat reads `repeat = N` or, for adaptive repeats,
// `repeat = { min = 3, max = 20, until = "ci < 3%" }` or
// `until = "verdict"`.
func (l *loader) decodeRepeat(a *hcl.Attribute, e *Experiment) hcl.Diagnostics {
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return diags
	}
	if !v.IsKnown() || v.IsNull() {
		return hcl.Diagnostics{errorf(a.Expr.Range(), "Invalid repeat", "repeat must be a number or { min, max, until }.")}
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		n, d := toInt(v, a.Expr.Range(), a.Name, 1, maxRepeat)
		if d != nil {
			return hcl.Diagnostics{d}
		}
		e.Repeat = n
		return nil
	}
	rng := a.Expr.Range()
	bad := func(format string, args ...any) hcl.Diagnostics {
		return hcl.Diagnostics{errorf(rng, "Invalid adaptive repeat", format, args...)}
	}
	fields := map[string]cty.Value{}
	for it := v.ElementIterator(); it.Next(); {
		k, val := it.Element()
		fields[k.AsString()] = val
	}
	for k := range fields {
		if k != "min" && k != "max" && k != "until" {
			return bad("repeat takes min, max and until, not %q.", truncate(k, 40))
		}
	}
	for _, k := range []string{"min", "max", "until"} {
		if _, ok := fields[k]; !ok {
			return bad(`repeat = { min = 3, max = 20, until = "ci < 3%%" } needs all three; %s is missing.`, k)
		}
	}
	lo, d := toInt(fields["min"], rng, "repeat.min", minAdaptive, maxRepeat)
	if d != nil {
		return hcl.Diagnostics{d}
	}
	hi, d := toInt(fields["max"], rng, "repeat.max", lo, maxRepeat)
	if d != nil {
		return hcl.Diagnostics{d}
	}
	until, d := toString(fields["until"], rng, "repeat.until")
	if d != nil {
		return hcl.Diagnostics{d}
	}
	if strings.TrimSpace(until) == untilVerdict {
		e.MinRepeat, e.Repeat, e.UntilVerdict = lo, hi, true
		return nil
	}
	m := untilRE.FindStringSubmatch(until)
	if m == nil {
		return bad(`until is "ci < P%%" (stop once the 95 %% confidence interval is narrower than ±P %% of the mean) or "verdict" (stop once the throughput expectation's verdict is decided), not %q.`, truncate(until, 40))
	}
	pct, _ := strconv.ParseFloat(m[1], 64)
	if pct <= 0 || pct >= 100 {
		return bad("until's percentage must be between 0 and 100, got %s.", m[1])
	}
	e.MinRepeat, e.Repeat, e.UntilCI = lo, hi, pct/100
	return nil
}
