package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	_ "github.com/lab-bench/lab/bench/tools" // registers the tools: interval readers, runners that re-parse old records
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

// TestIntervalsCSV: every interval of every stream of both ends, from
// iperf 3.12's recorded -J outputs (bench/iperf3/testdata: a three-stream
// TCP run, a reversed one, UDP at 100 Mb/s), the parsed time series of a
// tool without its own reader, and nothing for a failed run.
func TestIntervalsCSV(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "bench", "iperf3", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rec := func(cell, tool string, reverse bool, raw bench.Raw) results.Record {
		r := results.Record{RunID: "r1", Experiment: "x", Pair: "p", Cell: []results.CellValue{{Name: "case", Value: cell}},
			CellKey: "case=" + cell, Repeat: 1, Raw: raw}
		r.Intent.Bench.Tool, r.Intent.Bench.Reverse = tool, reverse
		return r
	}
	iperf2 := rec("iperf2", "iperf2", false, bench.Raw{Client: "(iperf 2's text)"})
	iperf2.Metrics.Intervals = []bench.Interval{{Start: 0, End: 1, Bps: 8e9}, {Start: 1, End: 2, Bps: 9e9}}
	failed := rec("failed", "iperf3", false, bench.Raw{Client: read("fail-connect.json")})
	failed.Error = "iperf3: unable to connect"
	recs := []results.Record{
		rec("tcp-p3", "iperf3", false, bench.Raw{Client: read("tcp-p3.json"), Server: read("tcp-p3.server.json")}),
		rec("tcp-reverse", "", true, bench.Raw{Client: read("tcp-reverse.json"), Server: read("tcp-reverse.server.json")}),
		rec("udp-100m", "iperf3", false, bench.Raw{Client: read("udp-100m.json"), Server: read("udp-100m.server.json")}),
		iperf2, failed,
	}
	var buf bytes.Buffer
	if err := Render(&buf, "intervals-csv", info, nil, Options{Records: recs}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "intervals-csv.golden"), buf.Bytes())
	out := buf.String()
	for _, want := range []string{
		"r1,x,p,tcp-p3,1,false,iperf3,client,sender,sum,",
		"r1,x,p,tcp-p3,1,false,iperf3,server,receiver,sum,",
		"r1,x,p,tcp-reverse,1,false,iperf3,client,receiver,",
		"r1,x,p,tcp-reverse,1,false,iperf3,server,sender,",
		"r1,x,p,iperf2,1,false,iperf2,client,sender,sum,0,1,1000000000,8e+09,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no row starting %q", want)
		}
	}
	if strings.Contains(out, ",failed,") {
		t.Error("a failed run has interval rows")
	}
	// The UDP receiver's rows carry its jitter and loss (the server's -J).
	udpServer := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "r1,x,p,udp-100m,1,false,iperf3,server,receiver,") {
			udpServer++
		}
	}
	if udpServer == 0 {
		t.Error("no UDP receiver rows")
	}
}
