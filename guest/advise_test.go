package guest

import "testing"

func TestAdviseLoss(t *testing.T) {
	loss := Settings{Loss: &Loss{Percent: 1, Method: "nth"}}
	tests := []struct {
		name         string
		recv, sender Settings
		offloads     map[string]string
		want         int
	}{
		{"no loss, no advice", Settings{}, Settings{}, map[string]string{"tso": "on", "gso": "on"}, 0},
		{"loss with tso and gso on", loss, Settings{}, map[string]string{"tso": "on", "gso": "on"}, 2},
		{"loss with segmentation off", loss, Settings{}, map[string]string{"tso": "off", "gso": "off"}, 0},
		{"loss on the sender, tso fixed on", Settings{}, loss, map[string]string{"tso": "on [fixed]", "gso": "off"}, 1},
	}
	for _, tc := range tests {
		got := AdviseLoss(tc.recv, tc.sender, Observed{Offloads: tc.offloads})
		if len(got) != tc.want {
			t.Errorf("%s: %d warnings %q, want %d", tc.name, len(got), got, tc.want)
		}
	}
}
