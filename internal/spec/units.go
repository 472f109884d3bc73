package spec

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// memoryRe accepts "512MiB", "2GiB", "2048M", "1.5G", "1TiB"; M and G are
// binary units, as hypervisors use them.
var memoryRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*(MiB|GiB|TiB|M|G|T)$`)

// maxMemoryMiB bounds memory sizes (16 TiB).
const maxMemoryMiB = 16 << 20

// parseMemoryMiB reads a memory size: a string with a unit or a number of MiB.
func parseMemoryMiB(v cty.Value, rng hcl.Range, name string) (int, *hcl.Diagnostic) {
	if !v.IsNull() && v.IsKnown() && v.Type() == cty.Number {
		return toInt(v, rng, name, 1, maxMemoryMiB)
	}
	s, d := toString(v, rng, name)
	if d != nil {
		return 0, d
	}
	bad := func(why string) (int, *hcl.Diagnostic) {
		return 0, errorf(rng, "Invalid memory size",
			"%q is not a valid memory size%s: write it like \"512MiB\", \"2GiB\" or \"2048M\" (M and G are MiB and GiB).",
			truncate(s, 40), why)
	}
	m := memoryRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return bad("")
	}
	f, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return bad("")
	}
	switch m[2] {
	case "GiB", "G":
		f *= 1024
	case "TiB", "T":
		f *= 1024 * 1024
	}
	if f != math.Trunc(f) {
		return bad(" (not a whole number of MiB)")
	}
	if f < 1 || f > maxMemoryMiB {
		return bad(fmt.Sprintf(" (must be between 1MiB and %dTiB)", maxMemoryMiB>>20))
	}
	return int(f), nil
}

// parsePercent reads "15%" (or a number of percent) as a fraction in [0, 1]
// when max is 100.
func parsePercent(v cty.Value, rng hcl.Range, name string) (float64, *hcl.Diagnostic) {
	var pct float64
	if !v.IsNull() && v.IsKnown() && v.Type() == cty.Number {
		f, d := toFloat(v, rng, name)
		if d != nil {
			return 0, d
		}
		pct = f
	} else {
		s, d := toString(v, rng, name)
		if d != nil {
			return 0, d
		}
		num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if !ok || err != nil {
			return 0, errorf(rng, "Invalid percentage", "%s must be a percentage like \"1%%\" or \"0.5%%\", got %q.", name, truncate(s, 40))
		}
		pct = f
	}
	if math.IsNaN(pct) || pct < 0 || pct > 100 {
		return 0, errorf(rng, "Invalid percentage", "%s must be between 0%% and 100%%, got %g%%.", name, pct)
	}
	return pct, nil
}
