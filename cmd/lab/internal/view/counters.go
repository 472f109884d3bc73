package view

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/results"
)

// RunCounters prints, for `lab show RUN`, the counters recorded around
// the runs (results.Record.Counters): per cell and end, the mean per
// measured run of each TCP counter and of the NIC's interrupts, and the
// facts of the cell's first record. Records without counters (written
// before lab read them, or from an OS that reads none) show nothing.
func RunCounters(w io.Writer, recs []results.Record) {
	type cell struct {
		key    string
		runs   int
		sums   [2]map[string]float64
		facts  [2]map[string]string
		hasEnd [2]bool
	}
	var order []string
	cells := map[string]*cell{}
	for _, r := range recs {
		if r.Warmup || r.Error != "" || r.Counters == nil {
			continue
		}
		key := esc(r.Experiment) + " / " + esc(r.Pair) + " (" + esc(r.CellKey) + ")"
		c := cells[key]
		if c == nil {
			c = &cell{key: key, sums: [2]map[string]float64{{}, {}}}
			cells[key] = c
			order = append(order, key)
		}
		c.runs++
		for i, s := range []*guest.CounterSnapshot{r.Counters.Server, r.Counters.Client} {
			if s == nil {
				continue
			}
			c.hasEnd[i] = true
			for k, v := range s.TCP {
				c.sums[i][k] += float64(v)
			}
			for _, v := range s.Interrupts {
				c.sums[i]["interrupts"] += float64(v)
			}
			if c.facts[i] == nil {
				c.facts[i] = s.Facts
			}
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "  counters  (mean per measured run; the NIC's interrupts summed over its sources; lab show -json has every record's)")
	for _, key := range order {
		c := cells[key]
		fmt.Fprintf(w, "    %s, %d run(s):\n", key, c.runs)
		for i, end := range []string{"server", "client"} {
			if !c.hasEnd[i] {
				continue
			}
			var parts []string
			for _, k := range []string{guest.CounterOutSegments, guest.CounterRetransSegments, guest.CounterTimeouts, guest.CounterRecoveries, "interrupts"} {
				if v, ok := c.sums[i][k]; ok {
					parts = append(parts, fmt.Sprintf("%s %.0f", k, v/float64(c.runs)))
				}
			}
			fmt.Fprintf(w, "      %s  %s\n", end, strings.Join(parts, "  "))
			if len(c.facts[i]) > 0 {
				var fs []string
				for _, k := range slices.Sorted(maps.Keys(c.facts[i])) {
					fs = append(fs, k+"="+esc(c.facts[i][k]))
				}
				fmt.Fprintf(w, "      %s  %s\n", strings.Repeat(" ", len(end)), strings.Join(fs, "  "))
			}
		}
	}
}
