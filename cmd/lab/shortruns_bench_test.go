package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/results"
)

// shortRuns is the number of runs BenchmarkShortRuns makes each way, and
// shortRunSecs their iperf3 duration.
const (
	shortRuns    = 24
	shortRunSecs = 1
)

// BenchmarkShortRuns (issue 32 §6) measures what lab adds to many short
// runs: the wall time of `lab apply` of a local lab with shortRuns iperf3
// runs of 1 s (4 cells: MTU × GRO, so settings change between runs as in
// random blocks) on namespaces an earlier apply left (-keep), against a
// plain shell loop that runs, on the same namespaces in the same order,
// the very server and client command lines lab recorded (Raw.ServerArgv,
// ClientArgv) under `ip netns exec` — the server started, its port polled
// with ss like lab's runner (10 ms), the client run, one run each, no
// settings applied. It prints the ratio lab / loop with MET (goal ≤ 1.01)
// or NOT met, the load average before and after, and where lab's time
// went (overheadBreakdown). Lab's host benchmark lock is the benchmark's
// own (LAB_HOST_LOCK_DIR), so that other labs on a shared machine do not
// make it wait.
func BenchmarkShortRuns(b *testing.B) {
	needNamespacesB(b)
	src := fmt.Sprintf(`
template "host" {}
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "short" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000], gro = [false, true] }
  repeat = %d
  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }
  iperf3 {
    duration = "%ds"
    omit     = "0s"
  }
}
`, shortRuns/4, shortRunSecs)
	dir := labDirB(b, "budget-short", src)
	b.Cleanup(func() {
		if out, err := exec.Command(labBin, "-chdir="+dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			b.Errorf("destroy the namespaces: %v\n%s", err, out)
		}
	})
	// The host's benchmark lock is lab's own, in a directory of this
	// benchmark: the lock is still taken and released around every run
	// (its cost counts), but another lab on this shared machine holding
	// /run/lab's would make lab wait while the loop, which takes no lock,
	// runs — a wait for the neighbour, not lab's per-run work.
	lockDir := b.TempDir()
	apply := func() *exec.Cmd {
		c := exec.Command(labBin, "-chdir="+dir, "apply", "-auto-approve", "-keep")
		c.Env = append(os.Environ(), "LAB_HOST_LOCK_DIR="+lockDir)
		return c
	}
	// The first apply makes the namespaces; the measured ones reuse them.
	if out, err := apply().CombinedOutput(); err != nil {
		b.Fatalf("first apply: %v\n%s", err, out)
	}
	server, client := keptNamespace(b, dir, "pair.veth.server"), keptNamespace(b, dir, "pair.veth.client")
	for i := 0; i < b.N; i++ {
		before := loadAvg()
		start := time.Now()
		if out, err := apply().CombinedOutput(); err != nil {
			b.Fatalf("apply: %v\n%s", err, out)
		}
		end := time.Now()
		labWall := end.Sub(start)
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		id, _ := rs.Latest()
		_, recs, err := rs.Load(id)
		if err != nil || len(recs) != shortRuns {
			b.Fatalf("results: %v (%d records)", err, len(recs))
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].Start.Before(recs[j].Start) })
		script := shellLoop(recs, server, client)
		loopStart := time.Now()
		if out, err := exec.Command("sh", "-c", script).CombinedOutput(); err != nil {
			b.Fatalf("shell loop: %v\n%s\n%s", err, out, script)
		}
		loopWall := time.Since(loopStart)
		after := loadAvg()
		ratio := labWall.Seconds() / loopWall.Seconds()
		b.ReportMetric(ratio, "lab/loop")
		fmt.Printf("short runs: %d runs of %ds: lab apply %.2fs, shell loop %.2fs, ratio %.3f (goal <= 1.01: %s); load before %s, after %s\n",
			shortRuns, shortRunSecs, labWall.Seconds(), loopWall.Seconds(), ratio, metOrNot(ratio <= 1.01), before, after)
		fmt.Println("short runs: lab " + overheadBreakdown(start, end, recs, shortRunSecs*time.Second))
	}
}

// shellLoop is the plain shell loop of BenchmarkShortRuns: each record's
// server and client command lines, in order, in the namespaces.
func shellLoop(recs []results.Record, server, client string) string {
	var s strings.Builder
	s.WriteString("set -e\n")
	for _, r := range recs {
		port := ""
		for i, a := range r.Raw.ServerArgv {
			if a == "-p" && i+1 < len(r.Raw.ServerArgv) {
				port = r.Raw.ServerArgv[i+1]
			}
		}
		fmt.Fprintf(&s, "ip netns exec %s %s >/dev/null &\n", server, view.ShellLine(r.Raw.ServerArgv))
		fmt.Fprintf(&s, "until ip netns exec %s ss -Hltn sport = :%s | grep -q .; do sleep 0.01; done\n", server, port)
		fmt.Fprintf(&s, "ip netns exec %s %s >/dev/null\nwait\n", client, view.ShellLine(r.Raw.ClientArgv))
	}
	return s.String()
}
