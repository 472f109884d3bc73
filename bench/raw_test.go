package bench

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestRawJSON: a JSON output is embedded as JSON and reads back as the
// same JSON; text output stays a string; a record of schema 1 (outputs as
// escaped strings) still reads.
func TestRawJSON(t *testing.T) {
	iperf3, err := os.ReadFile("iperf3/testdata/tcp-p1.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		raw          Raw
		clientPrefix string // how the client output starts in the encoding
	}{
		{"iperf3 json", Raw{Client: string(iperf3), Server: "{\"start\": {}}\n"}, `"client":{`},
		{"iperf2 text", Raw{Client: "[  1] 0.0-1.0 sec  1 GBytes\n", Version: "iperf version 2.1.8"}, `"client":"[  1]`},
		{"not quite json", Raw{Client: "{\"start\": 1, oops"}, `"client":"{\"start\"`},
		{"empty", Raw{}, `"client":null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.clientPrefix) {
				t.Errorf("encoding %.200s lacks %s", b, tt.clientPrefix)
			}
			var back Raw
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !sameJSONOrText(back.Client, tt.raw.Client) || !sameJSONOrText(back.Server, tt.raw.Server) || back.Version != tt.raw.Version {
				t.Errorf("round trip changed the raw output:\n%.200q\n%.200q", back.Client, tt.raw.Client)
			}
		})
	}
	// Schema 1: the output an escaped string.
	old, _ := json.Marshal(map[string]any{"client": string(iperf3), "server_cpu": map[string]any{"busy_pct": 12.5}})
	var r Raw
	if err := json.Unmarshal(old, &r); err != nil || r.Client != string(iperf3) || r.ServerCPU.Busy != 12.5 {
		t.Errorf("schema 1 raw: %v, busy %v, client %.80q", err, r.ServerCPU.Busy, r.Client)
	}
}

// sameJSONOrText compares two outputs as JSON values when both are JSON,
// else as text.
func sameJSONOrText(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil {
		xa, _ := json.Marshal(x)
		ya, _ := json.Marshal(y)
		return string(xa) == string(ya)
	}
	return a == b
}
