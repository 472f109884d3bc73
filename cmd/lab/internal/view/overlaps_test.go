package view

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestRunOverlaps: a run of an apply with -runs-at-once names its
// footprint and each run whose benchmark measured while its own did; runs
// of a serial apply print nothing.
func TestRunOverlaps(t *testing.T) {
	var b strings.Builder
	RunOverlaps(&b, []results.Record{{Experiment: "e", Pair: "p", CellKey: "mtu=9000", Repeat: 1}})
	if b.Len() != 0 {
		t.Errorf("serial apply: %q", b.String())
	}
	a := results.Record{Experiment: "e", Pair: "a", CellKey: "mtu=9000", Repeat: 1}
	a.Provenance.Footprint = []string{"host:h0"}
	a.Provenance.Overlapped = []results.Overlap{{Experiment: "e", Pair: "b", CellKey: "mtu=9000", Repeat: 1, Footprint: []string{"host:h1"}}}
	c := results.Record{Experiment: "e", Pair: "c", Repeat: 2}
	c.Provenance.Footprint = []string{"everything"}
	RunOverlaps(&b, []results.Record{a, c})
	want := "\nRuns at once (-runs-at-once): each run's footprint and the runs that measured while it measured:\n" +
		"  e/a mtu=9000 #1 on host:h0; measured with e/b mtu=9000 #1 on host:h1\n" +
		"  e/c #2 on everything: measured alone\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
