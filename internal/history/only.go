package history

import (
	"fmt"
	"strings"
)

// Selection is -only: sets of key=value conditions, any of which selects
// a point when all its conditions hold (keys: experiment, pair, and the
// matrix keys of the cell).
type Selection [][][2]string

// Add parses one -only value.
func (s *Selection) Add(v string) error {
	var set [][2]string
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k == "" || val == "" {
			return fmt.Errorf("want key=value[,key=value…], got %q", v)
		}
		set = append(set, [2]string{strings.TrimSpace(k), strings.TrimSpace(val)})
	}
	*s = append(*s, set)
	return nil
}

// Keep are the points s selects (all of them when s is empty).
func (s Selection) Keep(points []Point) []Point {
	if len(s) == 0 {
		return points
	}
	var out []Point
	for _, p := range points {
		for _, set := range s {
			if matches(p, set) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// matches says every condition of set holds for p.
func matches(p Point, set [][2]string) bool {
	cell := map[string]string{"experiment": p.Experiment, "pair": p.Pair}
	for _, kv := range strings.Split(p.Cell, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			cell[k] = v
		}
	}
	for _, c := range set {
		if v, ok := cell[c[0]]; !ok || v != c[1] {
			return false
		}
	}
	return true
}
