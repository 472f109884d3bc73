package operation

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// Only are -only selections, repeatable: each is key=value pairs joined
// by commas, all of which a run must match; a run matching any one -only
// is selected.
type Only []map[string]string

// Add parses one -only value.
func (o *Only) Add(s string) error {
	sel := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return fmt.Errorf("%q is not key=value (like pair=veth,mtu=9000)", part)
		}
		if prev, dup := sel[k]; dup && prev != v {
			return fmt.Errorf("%s is given twice (%s and %s); repeat -only to select either", k, prev, v)
		}
		sel[k] = v
	}
	*o = append(*o, sel)
	return nil
}

// String is the selection as written ("pair=fbsd,mtu=9000 or pair=deb").
func (o Only) String() string {
	var alts []string
	for _, sel := range o {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(sel)) {
			parts = append(parts, k+"="+sel[k])
		}
		alts = append(alts, strings.Join(parts, ","))
	}
	return strings.Join(alts, " or ")
}

// Check refuses keys and values the lab does not have, so a typo is an
// error rather than an empty selection.
func (o Only) Check(lab *spec.Lab) error {
	known := map[string]map[string]bool{"pair": {}, "experiment": {}}
	for _, e := range lab.Experiments {
		known["experiment"][e.Name] = true
		for _, p := range e.Pairs {
			known["pair"][p] = true
		}
		for _, d := range e.Matrix {
			if known[d.Name] == nil {
				known[d.Name] = map[string]bool{}
			}
			for _, v := range d.Values {
				known[d.Name][plan.Render(v)] = true
			}
		}
	}
	for _, sel := range o {
		for _, k := range slices.Sorted(maps.Keys(sel)) {
			vals, ok := known[k]
			if !ok {
				return fmt.Errorf("-only: the lab has no matrix key %q (keys: %s)", k, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
			}
			if !vals[sel[k]] {
				return fmt.Errorf("-only: %s has no value %q (values: %s)", k, sel[k], strings.Join(slices.Sorted(maps.Keys(vals)), ", "))
			}
		}
	}
	return nil
}

// Match reports whether r is selected (always, without -only).
func (o Only) Match(r plan.Run) bool {
	if len(o) == 0 {
		return true
	}
	for _, sel := range o {
		if matchAll(sel, r) {
			return true
		}
	}
	return false
}

func matchAll(sel map[string]string, r plan.Run) bool {
	for k, v := range sel {
		switch k {
		case "pair":
			if r.Pair != v {
				return false
			}
		case "experiment":
			if r.Experiment != v {
				return false
			}
		default:
			if !slices.ContainsFunc(r.Cell, func(c results.CellValue) bool { return c.Name == k && c.Value == v }) {
				return false
			}
		}
	}
	return true
}
