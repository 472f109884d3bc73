package guest

import "testing"

func TestAdviseLoss(t *testing.T) {
	loss := Settings{Loss: &Loss{Percent: 1, Method: "nth"}}
	tests := []struct {
		name         string
		recv, sender Settings
		offloads     map[string]string
		udp          bool
		want         int
	}{
		{"no loss, no advice", Settings{}, Settings{}, map[string]string{"tso": "on", "gso": "on"}, false, 0},
		{"loss with tso and gso on", loss, Settings{}, map[string]string{"tso": "on", "gso": "on"}, false, 2},
		{"loss with segmentation off", loss, Settings{}, map[string]string{"tso": "off", "gso": "off"}, false, 0},
		{"loss on the sender, tso fixed on", Settings{}, loss, map[string]string{"tso": "on [fixed]", "gso": "off"}, false, 1},
		{"UDP: datagrams are wire-sized", loss, Settings{}, map[string]string{"tso": "on", "gso": "on"}, true, 0},
	}
	for _, tc := range tests {
		got := AdviseLoss(tc.recv, tc.sender, Observed{Offloads: tc.offloads}, tc.udp)
		if len(got) != tc.want {
			t.Errorf("%s: %d warnings %q, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
