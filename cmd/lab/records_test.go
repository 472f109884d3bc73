package main

import (
	"encoding/json"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// oneRun is the one record of the latest apply in dir, which must have
// succeeded: the KVM suites run one 3-second cell per apply.
func oneRun(t *testing.T, dir string) results.Record {
	t.Helper()
	recs := loadRecords(t, dir)
	if len(recs) != 1 {
		t.Fatalf("want one record, got %d", len(recs))
	}
	if recs[0].Error != "" {
		t.Fatalf("run failed: %s", recs[0].Error)
	}
	return recs[0]
}

// iperf3Conn is one connection of iperf3's own account (start.connected
// in the client's JSON): the addresses the traffic really used.
type iperf3Conn struct {
	Local  string `json:"local_host"`
	Remote string `json:"remote_host"`
}

// iperf3Connections reads r's iperf3 client JSON; a record without any
// connection fails the test.
func iperf3Connections(t *testing.T, r results.Record) []iperf3Conn {
	t.Helper()
	var ip3 struct {
		Start struct {
			Connected []iperf3Conn `json:"connected"`
		} `json:"start"`
	}
	if err := json.Unmarshal([]byte(r.Raw.Client), &ip3); err != nil || len(ip3.Start.Connected) == 0 {
		t.Fatalf("%s: iperf3 client JSON: %v: %.300s", r.CellKey, err, r.Raw.Client)
	}
	return ip3.Start.Connected
}
