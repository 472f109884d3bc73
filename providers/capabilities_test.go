package providers

import "testing"

// TestMeetRoutedWhy: a cross pair's capabilities offer routed pairs only
// when both ends' do, and say why not with the end's RoutedWhy that
// refuses them.
func TestMeetRoutedWhy(t *testing.T) {
	yes := Capabilities{RoutedPairs: true}
	no := Capabilities{RoutedWhy: "set management."}
	for _, tc := range []struct {
		c, o   Capabilities
		routed bool
		why    string
	}{
		{yes, yes, true, ""},
		{yes, no, false, "set management."},
		{no, yes, false, "set management."},
		{no, Capabilities{RoutedWhy: "other."}, false, "set management."},
	} {
		m := tc.c.Meet(tc.o)
		if m.RoutedPairs != tc.routed || m.RoutedWhy != tc.why {
			t.Errorf("%+v meet %+v: RoutedPairs %v, RoutedWhy %q; want %v, %q", tc.c, tc.o, m.RoutedPairs, m.RoutedWhy, tc.routed, tc.why)
		}
	}
}
