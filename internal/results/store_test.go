package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var started = time.Date(2026, 11, 29, 23, 45, 1, 0, time.UTC)

func TestNewRunIDs(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "results")}
	local := started.In(time.FixedZone("CET", 3600))
	for _, want := range []string{"20261129T234501Z", "20261129T234501Z-2", "20261129T234501Z-3"} {
		r, err := s.NewRun(RunInfo{Lab: "l", Started: local})
		if err != nil {
			t.Fatal(err)
		}
		if r.ID() != want {
			t.Errorf("run id = %s, want %s", r.ID(), want)
		}
	}
	if _, err := s.NewRun(RunInfo{ID: "20261129T234501Z"}); err == nil {
		t.Error("NewRun with a taken explicit id succeeded")
	}
}

func TestWriteFinishLoad(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	r, err := s.NewRun(RunInfo{Lab: "vmx", Started: started, Experiments: []string{"mtu", "lro"}})
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := s.Load(r.ID())
	if err != nil || info.Status != StatusRunning {
		t.Fatalf("new run: status %q, err %v", info.Status, err)
	}

	at := func(min int) time.Time { return started.Add(time.Duration(min) * time.Minute) }
	var written []Record
	add := func(exp, pair, cell string, idx, repeat, min int, warm bool) {
		rec := rec(exp, pair, cell, repeat, 1)
		rec.CellIndex, rec.Start, rec.Warmup = idx, at(min), warm
		rec.Cell = nil
		for _, kv := range strings.Split(cell, ",") {
			k, v, _ := strings.Cut(kv, "=")
			rec.Cell = append(rec.Cell, CellValue{Name: k, Value: v})
		}
		written = append(written, rec)
	}
	// Written out of order, concurrently; Load must put them in order.
	add("lro", "fbsd", "lro=true", 1, 1, 30, false)
	add("lro", "fbsd", "lro=false", 0, 1, 20, false)
	add("mtu", "deb", "mtu=1500", 0, 1, 10, false)
	add("mtu", "fbsd", "mtu=9000,streams=2", 1, 2, 4, false)
	add("mtu", "fbsd", "mtu=9000,streams=2", 1, 1, 3, false)
	add("mtu", "fbsd", "mtu=1500,streams=2", 0, 1, 1, false)
	add("mtu", "fbsd", "mtu=1500,streams=2", 0, 1, 0, true)
	var wg sync.WaitGroup
	for _, rec := range written {
		wg.Go(func() {
			if err := r.Write(rec); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := r.Finish(StatusComplete); err != nil {
		t.Fatal(err)
	}

	info, recs, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != StatusComplete || info.Ended.IsZero() || info.Lab != "vmx" {
		t.Errorf("run info = %+v", info)
	}
	var got []string
	for _, rec := range recs {
		got = append(got, fmt.Sprintf("%s/%s/%s/%d/%v", rec.Experiment, rec.Pair, rec.CellKey, rec.Repeat, rec.Warmup))
		if rec.RunID != r.ID() || rec.Schema != Schema {
			t.Errorf("record run id %q schema %d", rec.RunID, rec.Schema)
		}
	}
	want := []string{
		"mtu/fbsd/mtu=1500,streams=2/1/true",
		"mtu/fbsd/mtu=1500,streams=2/1/false",
		"mtu/fbsd/mtu=9000,streams=2/1/false",
		"mtu/fbsd/mtu=9000,streams=2/2/false",
		"mtu/deb/mtu=1500/1/false",
		"lro/fbsd/lro=false/1/false",
		"lro/fbsd/lro=true/1/false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Load order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	path := filepath.Join(r.Dir(), "mtu", "fbsd", "mtu=9000_streams=2", "r2.json")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("%s mode %v, want 0644", path, fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "mtu", "fbsd", "mtu=1500_streams=2", "w1.json")); err != nil {
		t.Errorf("warm-up record: %v", err)
	}
}

func TestWriteRefuses(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	r, _ := s.NewRun(RunInfo{Started: started})
	if err := r.Write(rec("e", "p", "c", 1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(rec("e", "p", "c", 1, 2)); err == nil || !strings.Contains(err.Error(), "already written") {
		t.Errorf("second write of the same record: %v", err)
	}
	other := rec("e", "p", "c", 2, 1)
	other.RunID = "19990101T000000Z"
	if err := r.Write(other); err == nil {
		t.Error("record of another run accepted")
	}
	if err := r.Finish("done"); err == nil {
		t.Error("unknown status accepted")
	}
}

func TestRunsAndLatest(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if _, err := s.Latest(); err == nil {
		t.Error("Latest of an empty store succeeded")
	}
	ids := []string{"20261129T234501Z-10", "20261129T234501Z", "20250101T000000Z", "20261129T234501Z-2"}
	for _, id := range ids {
		if _, err := s.NewRun(RunInfo{ID: id, Started: started}); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(s.Dir, "not-a-run"), 0o755)
	runs, err := s.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, r.ID)
	}
	want := "20250101T000000Z 20261129T234501Z 20261129T234501Z-2 20261129T234501Z-10"
	if strings.Join(got, " ") != want {
		t.Errorf("Runs = %v, want %s", got, want)
	}
	if latest, _ := s.Latest(); latest != "20261129T234501Z-10" {
		t.Errorf("Latest = %s", latest)
	}
	if _, _, err := s.Load("../etc"); err == nil {
		t.Error("Load accepted a path as run id")
	}
	if _, _, err := s.Load("19990101T000000Z"); err == nil || !strings.Contains(err.Error(), "no run") {
		t.Errorf("Load of a missing run: %v", err)
	}
}

func TestSanitize(t *testing.T) {
	tests := map[string]string{
		"mtu=1500,gro=false,streams=1": "mtu=1500_gro=false_streams=1",
		"":                             "default",
		"..":                           "default",
		"a/b c":                        "a-b-c~0af99a609169",
		"a b/c":                        "a-b-c~539138d51839",
		"loss=0.5%":                    "loss=0.5-~49ca9af5f3a7",
		"Fast_Pair-1":                  "Fast_Pair-1",
		strings.Repeat("x", 128):       strings.Repeat("x", 128),
		strings.Repeat("x", 129):       strings.Repeat("x", 115) + "~" + "0ec9eb33e745",
	}
	for in, want := range tests {
		if got := Sanitize(in); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCellDir: distinct cells get distinct directories of bounded length,
// readable ones when the values are plain.
func TestCellDir(t *testing.T) {
	cell := func(kv ...string) []CellValue {
		var out []CellValue
		for i := 0; i < len(kv); i += 2 {
			out = append(out, CellValue{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	key := func(c []CellValue) string {
		var parts []string
		for _, v := range c {
			parts = append(parts, v.Name+"="+v.Value)
		}
		return strings.Join(parts, ",")
	}
	tests := []struct {
		cell []CellValue
		want string
	}{
		{nil, "default"},
		{cell("mtu", "1500", "gro", "false"), "mtu=1500_gro=false"},
		{cell("tcp_rmem", "4096-131072", "loss", "0.5"), "tcp_rmem=4096-131072_loss=0.5"},
		// The collisions: values that map to the same characters.
		{cell("a", "x y"), "a=x-y~9f54810734a2"},
		{cell("a", "x-y"), "a=x-y"},
		{cell("a", "x_y"), "a=x_y~9e0264fa984e"},
		{cell("a", "x,y"), "a=x_y~14372183b8cb"},
		{cell("a", "1", "b", "2_b=3"), "a=1_b=2_b=3~c4938363bcd0"},
		{cell("a", "1_b=2", "b", "3"), "a=1_b=2_b=3~22624f2d5d63"},
		// The 300-character key.
		{cell(strings.Repeat("k", 300), "1"), strings.Repeat("k", 115) + "~016ecea1d4b1"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		got := CellDir(tt.cell, key(tt.cell))
		if got != tt.want {
			t.Errorf("CellDir(%q) = %q, want %q", key(tt.cell), got, tt.want)
		}
		if len(got) > MaxPathElement || seen[got] {
			t.Errorf("CellDir(%q) = %q: too long or taken", key(tt.cell), got)
		}
		seen[got] = true
	}
}

func TestResolveAliases(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if _, err := s.Resolve("latest"); err == nil {
		t.Error("latest of an empty store resolved")
	}
	for _, id := range []string{"20261129T234501Z", "20261129T234501Z-10", "20261129T234501Z-2"} {
		if _, err := s.NewRun(RunInfo{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{"latest": "20261129T234501Z-10", "previous": "20261129T234501Z-2", "x": "x"} {
		if got, err := s.Resolve(in); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// A run whose process died (kill -9) without finishing it reads as
// interrupted, with a note, run.json is corrected on disk, and the
// temporary files its writes left are removed.
func TestDeadRunReadsInterrupted(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1)")
	}
	host, _ := os.Hostname()
	tests := []struct {
		name string
		info RunInfo
		want string
	}{
		{"dead process on this host", RunInfo{ID: "a", Status: StatusRunning, Host: host, PID: dead.Process.Pid}, StatusInterrupted},
		{"live process", RunInfo{ID: "b", Status: StatusRunning, Host: host, PID: os.Getpid()}, StatusRunning},
		{"another host", RunInfo{ID: "c", Status: StatusRunning, Host: host + "-elsewhere", PID: dead.Process.Pid}, StatusRunning},
		{"no pid (older lab)", RunInfo{ID: "d", Status: StatusRunning, Host: host}, StatusRunning},
		{"finished", RunInfo{ID: "e", Status: StatusComplete, Host: host, PID: dead.Process.Pid}, StatusComplete},
	}
	s := Store{Dir: t.TempDir()}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(s.Dir, tc.info.ID), 0o755); err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(tc.info)
			if err := os.WriteFile(filepath.Join(s.Dir, tc.info.ID, "run.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			// What a kill -9 during a write leaves, and files that only
			// look like it.
			strays := []string{".run.json.tmp-123", "e/p/c/.r1.json.tmp-45", "e/p/c/.w2.json.tmp-6"}
			others := []string{".notes.tmp-1", "e/p/c/.x.json.tmp-4", "e/p/c/.r1.json.tmp-4x", "e/p/c/r1.json.tmp-4"}
			for _, f := range append(append([]string{}, strays...), others...) {
				path := filepath.Join(s.Dir, tc.info.ID, f)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			info, _, err := s.Load(tc.info.ID)
			if err != nil || info.Status != tc.want {
				t.Fatalf("status %q (%v), want %q", info.Status, err, tc.want)
			}
			for _, f := range strays {
				_, err := os.Stat(filepath.Join(s.Dir, tc.info.ID, f))
				if gone := errors.Is(err, os.ErrNotExist); gone != (tc.want == StatusInterrupted) {
					t.Errorf("%s removed: %t, want removed only from a dead run", f, gone)
				}
			}
			for _, f := range others {
				if _, err := os.Stat(filepath.Join(s.Dir, tc.info.ID, f)); err != nil {
					t.Errorf("%s, not a temporary file of lab's, was removed: %v", f, err)
				}
			}
			if tc.want == StatusInterrupted {
				again, _ := s.readInfo(tc.info.ID)
				raw, _ := os.ReadFile(filepath.Join(s.Dir, tc.info.ID, "run.json"))
				if !strings.Contains(info.Note, "ended without finishing it") || !strings.Contains(string(raw), `"interrupted"`) || again.Status != StatusInterrupted {
					t.Errorf("note %q; run.json on disk:\n%s", info.Note, raw)
				}
			}
		})
	}
}

// TestLoadSchema1: a record written before schema 2, with the iperf3
// output as an escaped string in raw.client, loads with that output
// intact; a schema 2 record embeds it as JSON.
func TestLoadSchema1(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	r, err := s.NewRun(RunInfo{Started: started, Lab: "old"})
	if err != nil {
		t.Fatal(err)
	}
	client := `{"start": {"version": "iperf 3.12"}, "end": {}}`
	rc := rec("e", "p", "c", 1, 5)
	rc.Raw.Client = client
	if err := r.Write(rc); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Dir(), "e", "p", "c", "r1.json")
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(now), `"client": {`) || !strings.Contains(string(now), `"schema": 2`) {
		t.Errorf("schema 2 record does not embed the JSON output:\n%s", now)
	}
	old := fmt.Sprintf(`{"schema": 1, "run_id": %q, "experiment": "e", "pair": "p", "cell_key": "c", "repeat": 1,
  "metrics": {"throughput_bps": 5e9, "retransmits": 3}, "raw": {"client": %q, "server_cpu": {"busy_pct": 40}}}`, r.ID(), client)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	_, recs, err := s.Load(r.ID())
	if err != nil || len(recs) != 1 {
		t.Fatalf("load: %v, %d records", err, len(recs))
	}
	got := recs[0]
	if got.Schema != 1 || got.Raw.Client != client || got.Raw.ServerCPU.Busy != 40 || got.Metrics.ThroughputBps != 5e9 {
		t.Errorf("schema 1 record read as %+v", got)
	}
	if g := Group(recs); len(g) != 1 || g[0].ThroughputBps.Mean != 5e9 {
		t.Errorf("groups of a schema 1 record: %+v", g)
	}
}

// TestLoadBoundsRecordSize: a record (or run.json) over MaxJSONFile is
// refused, naming it, without being read — a sparse file costs nothing to
// make (a published bundle is untrusted input, issue 31 §1.4).
func TestLoadBoundsRecordSize(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	r, err := s.NewRun(RunInfo{Lab: "vmx", Started: started, Experiments: []string{"mtu"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Write(rec("mtu", "p", "mtu=1500", 1, 1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Finish(StatusComplete); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(r.Dir(), "mtu", "p", "big.json")
	f, err := os.Create(p)
	if err == nil {
		err = f.Truncate(MaxJSONFile + 1)
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = s.Load(r.ID())
	if err == nil || !strings.Contains(err.Error(), "big.json") || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("Load = %v, want a refusal of big.json for its size", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Load took %s: it read the file", took)
	}
}

// TestReadOnlyStoreWritesNothing: a read-only store (a published
// bundle's records) reports a dead run as interrupted but neither
// corrects its run.json nor removes what look like a killed write's
// temporary files: the bundle is never written to.
func TestReadOnlyStoreWritesNothing(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1)")
	}
	host, _ := os.Hostname()
	s := Store{Dir: t.TempDir(), ReadOnly: true}
	data, _ := json.Marshal(RunInfo{ID: "a", Status: StatusRunning, Host: host, PID: dead.Process.Pid})
	stray := filepath.Join(s.Dir, "a", ".run.json.tmp-123")
	for path, body := range map[string][]byte{filepath.Join(s.Dir, "a", "run.json"): data, stray: []byte("{")} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info, _, err := s.Load("a")
	if err != nil || info.Status != StatusInterrupted {
		t.Fatalf("status %q (%v), want %q", info.Status, err, StatusInterrupted)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, "a", "run.json")); !bytes.Equal(got, data) {
		t.Errorf("run.json was rewritten: %s", got)
	}
	if _, err := os.Stat(stray); err != nil {
		t.Errorf("the temporary-looking file was removed: %v", err)
	}
}
