package linux_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/linux"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/internal/golden"
)

// TestParseCounters reads recorded outputs of ReadCounters (testdata/
// counters-*.txt; their README says where each comes from) into golden
// snapshots.
func TestParseCounters(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "counters-*.txt"))
	if len(files) == 0 {
		t.Fatal("no testdata/counters-*.txt")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := linux.ParseCounters(string(b))
			if err != nil {
				t.Fatal(err)
			}
			js, _ := json.MarshalIndent(snap, "", "  ")
			golden.Check(t, f[:len(f)-len(".txt")]+".golden", string(js)+"\n")
		})
	}
	if _, err := linux.ParseCounters("#snmp\nIp: Forwarding\nIp: 1\n"); err == nil {
		t.Error("an output without the TCP MIB parsed")
	}
}

// TestCountersForReal reads the counters on a real veth end around real
// TCP traffic (iperf3 through the pair): the segments sent went up, and a
// veth has no interrupt lines.
func TestCountersForReal(t *testing.T) {
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Skip("needs iperf3")
	}
	p := netnstest.NewPair(t)
	ctx := context.Background()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	cli := netns.New("pair.t.client", p.B.NS, nil)
	read := func() guest.CounterSnapshot {
		t.Helper()
		res, err := cli.Run(ctx, linux.ReadCounters(p.B.Iface))
		if err != nil {
			t.Fatal(err)
		}
		snap, err := linux.ParseCounters(string(res.Stdout))
		if err != nil {
			t.Fatalf("%v\n%s", err, res.Stdout)
		}
		return snap
	}
	before := read()
	server := exec.Command("ip", "netns", "exec", p.A.NS, "iperf3", "-s", "-1", "-B", p.A.Addr, "-p", "5299")
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer server.Process.Kill()
	time.Sleep(300 * time.Millisecond)
	if _, err := cli.Run(ctx, guest.Cmd{Argv: []string{"iperf3", "-c", p.A.Addr, "-p", "5299", "-t", "1", "-J"}}); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	d := read().Since(before)
	if d.TCP[guest.CounterOutSegments] < 1000 {
		t.Errorf("%d segments sent by a 1 s iperf3 client, want thousands: %+v", d.TCP[guest.CounterOutSegments], d)
	}
	if len(d.Interrupts) != 0 {
		t.Errorf("a veth with interrupts: %v", d.Interrupts)
	}
	if d.Facts["qdisc"] == "" {
		t.Errorf("no qdisc for the veth: %v", d.Facts)
	}
	_ = srv
}

// TestCountersScriptRunsFewPrograms: the counters script (read twice per
// end each run) starts only the programs the shell cannot stand in for —
// cat, readlink, awk, tc and ethtool — and, given only those on its PATH,
// still reads every section: the MIB, /proc/interrupts' CPU header (read
// by the shell, not head), the qdisc. Each program it spares is a process
// on the end, tens of milliseconds on a loaded host (issue 32 §6).
func TestCountersScriptRunsFewPrograms(t *testing.T) {
	dir := t.TempDir()
	for _, tool := range []string{"cat", "readlink", "awk", "tc", "ethtool"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("needs %s", tool)
		}
		if err := os.Symlink(path, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := linux.ReadCounters("lo")
	sh := exec.Command("/bin/sh", cmd.Argv[1:]...)
	sh.Env = []string{"PATH=" + dir}
	out, err := sh.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := linux.ParseCounters(string(out)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^#interrupts\n\s+CPU0 `).Match(out) {
		t.Errorf("no CPU header under #interrupts:\n%s", out)
	}
	if !regexp.MustCompile(`(?m)^#qdisc\nqdisc `).Match(out) {
		t.Errorf("no qdisc of lo:\n%s", out)
	}
}
