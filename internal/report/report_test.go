package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/results"
)

var info = results.RunInfo{
	ID: "20261129T234501Z", Lab: "vmx-lro", LabVersion: "0.1.0", Host: "bench1",
	Started: time.Date(2026, 11, 29, 23, 45, 1, 0, time.UTC), Status: results.StatusComplete,
	Experiments: []string{"lro-mtu"},
}

// fakeGroups summarises fixed records: a cell with n=3, one with n=1, a
// noisy one, one where every run failed, plus a warm-up that is ignored.
func fakeGroups() []results.CellGroup {
	type run struct {
		pair, mtu, streams string
		gbps               float64
		retr               int64
		srv, cli           float64
		err                string
		warmup             bool
	}
	runs := []run{
		{"fbsd", "1500", "1", 99, 0, 0, 0, "", true},
		{"fbsd", "1500", "1", 2.31, 12, 48.2, 31.5, "", false},
		{"fbsd", "1500", "1", 2.47, 15, 50.1, 33.0, "", false},
		{"fbsd", "1500", "1", 2.42, 9, 49.0, 32.1, "", false},
		{"fbsd", "9000", "1", 8.61, 0, 61.25, 40.0, "", false},
		{"deb", "1500", "1", 12.0, 120, 70.0, 55.5, "", false},
		{"deb", "1500", "1", 17.5, 80, 72.5, 57.0, "", false},
		{"deb", "1500", "1", 14.9, 101, 71.0, 56.0, "iperf3: connection refused", false},
		{"deb", "1500", "1", 15.1, 95, 71.2, 56.4, "", false},
		{"deb", "9000", "2", 0, 0, 0, 0, "iperf3: unable to connect | timeout", false},
	}
	var recs []results.Record
	repeats := map[string]int{} // per cell, 1-based, as apply numbers them
	for _, r := range runs {
		cell := r.pair + "/" + r.mtu + "/" + r.streams + "/" + strconv.FormatBool(r.warmup)
		repeats[cell]++
		rec := results.Record{
			Experiment: "lro-mtu", Pair: r.pair, Repeat: repeats[cell], Warmup: r.warmup, Error: r.err,
			Cell:    []results.CellValue{{Name: "mtu", Value: r.mtu}, {Name: "streams", Value: r.streams}},
			CellKey: "mtu=" + r.mtu + ",streams=" + r.streams,
			Provenance: results.Provenance{Host: "bench1", ToolVersion: "iperf 3.16",
				ServerKernel: map[string]string{"fbsd": "FreeBSD 14.2-RELEASE", "deb": "Linux 6.1.0-27-amd64"}[r.pair]},
		}
		if r.pair == "deb" { // ring sizes asked on the Linux server (rx_ring = 1024, tx_ring = 512)
			rec.Observed.Server.Rings = &guest.Rings{RX: 1024, TX: 512, RXMax: 4096, TXMax: 4096}
		}
		if r.err == "" {
			rec.Metrics = bench.Sample{ThroughputBps: r.gbps * 1e9, Retransmits: r.retr,
				ServerCPU: bench.CPUUsage{Busy: r.srv}, ClientCPU: bench.CPUUsage{Busy: r.cli}}
		}
		recs = append(recs, rec)
	}
	return results.Group(recs)
}

func TestRenderGolden(t *testing.T) {
	tests := []struct {
		name, format string
		opt          Options
	}{
		{"table", "table", Options{}},
		{"table-color", "table", Options{Color: true}},
		{"markdown", "markdown", Options{}},
		{"csv", "csv", Options{}},
		{"json", "json", Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Render(&buf, tt.format, info, fakeGroups(), tt.opt); err != nil {
				t.Fatal(err)
			}
			if !tt.opt.Color && strings.Contains(buf.String(), "\x1b[") {
				t.Error("colour escape in output with Color off")
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".golden"), buf.Bytes())
		})
	}
}

func TestRenderErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(&buf, "svg", info, nil, Options{}); err == nil || !strings.Contains(err.Error(), "no results") {
		t.Errorf("svg without results: %v", err)
	}
	if err := Render(&buf, "pdf", info, nil, Options{}); err == nil || !strings.Contains(err.Error(), "known: table") {
		t.Errorf("unknown format: %v", err)
	}
}

func TestRenderEmpty(t *testing.T) {
	for _, format := range []string{"table", "markdown", "csv", "json"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, info, nil, Options{}); err != nil {
			t.Errorf("%s with no groups: %v", format, err)
		}
	}
}

func TestCellFormatting(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want string
	}{
		{"none", nil, "-"},
		{"one", []float64{12.4149e9}, "12.41"},
		{"three", []float64{2.31e9, 2.47e9, 2.42e9}, "2.40 ± 0.20"},
	}
	for _, tt := range tests {
		if got := throughput(results.Summarize(tt.xs)); got != tt.want {
			t.Errorf("%s: throughput = %q, want %q", tt.name, got, tt.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 12: "12", 12.34: "12.3", -0.01: "0", 2.05: "2.1"} {
		if got := number(v, 1); got != want {
			t.Errorf("number(%v, 1) = %q, want %q", v, got, want)
		}
	}
}

func TestMarkdownEscapesCells(t *testing.T) {
	var b strings.Builder
	writeMDRow(&b, []string{`a|b`, `c\d`, ""})
	if got, want := b.String(), "| a\\|b | c\\\\d |  |\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestPlots renders the fixed groups as SVG and PNG; testdata/plot.png is
// kept for a person to look at (go test -update rewrites it).
func TestPlots(t *testing.T) {
	for _, format := range []string{"svg", "png"} {
		var buf bytes.Buffer
		if err := Render(&buf, format, info, fakeGroups(), Options{}); err != nil {
			t.Fatal(err)
		}
		magic := map[string]string{"svg": "<?xml", "png": "\x89PNG"}[format]
		if !bytes.HasPrefix(buf.Bytes(), []byte(magic)) || buf.Len() < 2000 {
			t.Errorf("%s: %d bytes starting %q", format, buf.Len(), buf.Bytes()[:min(8, buf.Len())])
		}
		if format == "svg" && !strings.Contains(buf.String(), "Gb/s") {
			t.Error("svg lacks the axis label")
		}
		if golden.Update() && format == "png" {
			os.WriteFile(filepath.Join("testdata", "plot.png"), buf.Bytes(), 0o644)
		}
	}
}

func TestLayout(t *testing.T) {
	cats, ss := layout(fakeGroups())
	// Categories: pair × mtu (two pairs); series: the last dimension, streams.
	want := []string{"fbsd\nmtu=1500", "fbsd\nmtu=9000", "deb\nmtu=1500", "deb\nmtu=9000"}
	if strings.Join(cats, "|") != strings.Join(want, "|") || len(ss) != 2 || ss[0].name != "streams=1" {
		t.Errorf("cats %q, series %d %q", cats, len(ss), ss[0].name)
	}
}
