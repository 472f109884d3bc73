package results

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
)

func TestMarkDisturbed(t *testing.T) {
	tests := []struct {
		server, client float64
		want           string
	}{
		{0, 0, ""},
		{5, 5, ""}, // at the threshold: not above it
		{12.5, 0, "CPU steal 12.5% on the server"},
		{0, 6, "CPU steal 6.0% on the client"},
	}
	for _, tc := range tests {
		rec := Record{Metrics: bench.Sample{ServerCPU: bench.CPUUsage{Steal: tc.server}, ClientCPU: bench.CPUUsage{Steal: tc.client}}}
		got := MarkDisturbed(&rec)
		if got != (tc.want != "") || !strings.HasPrefix(rec.Disturbed, tc.want) {
			t.Errorf("steal %v/%v: %v %q, want %q", tc.server, tc.client, got, rec.Disturbed, tc.want)
		}
	}
	g := Group([]Record{{CellKey: "a", Repeat: 1, Disturbed: "x"}, {CellKey: "a", Repeat: 2}})
	if len(g) != 1 || g[0].Disturbed != 1 {
		t.Errorf("groups %+v: want one disturbed run counted", g)
	}
}
