package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// RunOverlaps prints, for `lab show RUN`, what an apply with
// -runs-at-once ran at the same time: each run's footprint and the runs
// whose benchmarks measured while its own did (results.Provenance.Footprint,
// Overlapped), so a reader can recheck that no two of them shared a host. An apply that ran
// one run at a time shows nothing.
func RunOverlaps(w io.Writer, recs []results.Record) {
	var lines []string
	for _, r := range recs {
		p := r.Provenance
		if len(p.Footprint) == 0 {
			continue
		}
		line := fmt.Sprintf("  %s on %s", runName(r.Experiment, r.Pair, r.CellKey, r.Repeat), esc(strings.Join(p.Footprint, ", ")))
		if len(p.Overlapped) == 0 {
			line += ": measured alone"
		}
		for i, o := range p.Overlapped {
			sep := "; measured with "
			if i > 0 {
				sep = ", "
			}
			line += sep + runName(o.Experiment, o.Pair, o.CellKey, o.Repeat) + " on " + esc(strings.Join(o.Footprint, ", "))
		}
		lines = append(lines, line)
	}
	section(w, "Runs at once (-runs-at-once): each run's footprint and the runs that measured while it measured:", lines)
}

// section prints a titled block of `lab show`'s lines after a blank line;
// nothing when there are none.
func section(w io.Writer, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\n"+title)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func runName(experiment, pair, cell string, repeat int) string {
	name := esc(experiment) + "/" + esc(pair)
	if cell != "" {
		name += " " + esc(cell)
	}
	return fmt.Sprintf("%s #%d", name, repeat)
}
