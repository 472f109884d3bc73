package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf3"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
)

// BenchmarkApplyOverhead (P1) runs a 12-cell local matrix at 5 s per run
// and reports wall(lab apply) / (cells × duration). Target: ≤ 1.01. It
// prints where the rest went, from the records' timestamps: before the
// first run (start-up, plan, namespaces), each run's settings and server
// start (record start → iperf3 client start), the client itself beyond
// its 5 s, the server's end and CPU sampling after the client (client
// exit → record end), the gap between runs (record write, next run's
// set-up before its record starts) and after the last run (teardown).
func BenchmarkApplyOverhead(b *testing.B) {
	needNamespacesB(b)
	const src = `
template "host" {}
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "overhead" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000], gro = [false, true], streams = [1, 2, 3] }
  guest {
    mtu = matrix.mtu
    gro = matrix.gro
  }
  iperf3 {
    duration = "5s"
    omit     = "0s"
    parallel = matrix.streams
  }
}
`
	for i := 0; i < b.N; i++ {
		dir := labDirB(b, "bench-ovh", src)
		start := time.Now()
		if out, err := exec.Command(labBin, "-chdir="+dir, "apply", "-auto-approve").CombinedOutput(); err != nil {
			b.Fatalf("apply: %v\n%s", err, out)
		}
		end := time.Now()
		wall := end.Sub(start)
		ratio := wall.Seconds() / (12 * 5)
		b.ReportMetric(wall.Seconds(), "s-wall")
		b.ReportMetric(ratio, "overhead-ratio")
		fmt.Printf("overhead: wall %.1fs for 12 cells x 5s = ratio %.3f (target <= 1.01: %s), load %s\n", wall.Seconds(), ratio, metOrNot(ratio <= 1.01), loadAvg())
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		id, _ := rs.Latest()
		_, recs, err := rs.Load(id)
		if err != nil || len(recs) != 12 {
			b.Fatalf("results: %v (%d records)", err, len(recs))
		}
		fmt.Println("overhead: " + overheadBreakdown(start, end, recs, 5*time.Second))
	}
}

// overheadBreakdown says where an apply's time beyond its runs' planned
// durations went, summed over the runs (see BenchmarkApplyOverhead).
func overheadBreakdown(start, end time.Time, recs []results.Record, planned time.Duration) string {
	sort.Slice(recs, func(i, j int) bool { return recs[i].Start.Before(recs[j].Start) })
	var setup, client, after, gaps time.Duration
	for i, r := range recs {
		setup += r.Raw.Start.Sub(r.Start)
		client += r.Raw.End.Sub(r.Raw.Start) - planned
		after += r.End.Sub(r.Raw.End)
		if i > 0 {
			gaps += r.Start.Sub(recs[i-1].End)
		}
	}
	n := time.Duration(len(recs))
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("before the first run %s; per run (mean of %d): settings+server start %s, client beyond %v %s, "+
		"server end+CPU sampling %s, between runs %s; after the last run %s",
		ms(recs[0].Start.Sub(start)), len(recs), ms(setup/n), planned, ms(client/n), ms(after/n), ms(gaps/(n-1)), ms(end.Sub(recs[len(recs)-1].End)))
}

// loadAvg is /proc/loadavg's three load averages, printed beside every
// timing a benchmark prints (the machine may be shared).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// BenchmarkFidelity compares lab's throughput with iperf3 run by hand on
// the same namespace pair with the same CPU pinning: median of 5 each,
// interleaved so drift hits both alike. Target: within ±3 %.
func BenchmarkFidelity(b *testing.B) {
	needNamespacesB(b)
	const src = `
template "host" {}
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "fidelity" {
  pairs  = [pair.veth]
  repeat = 1
  iperf3 {
    duration = "3s"
    omit     = "0s"
  }
}
`
	dir := labDirB(b, "bench-fid", src)
	b.Cleanup(func() { exec.Command(labBin, "-chdir="+dir, "destroy", "-auto-approve").Run() })
	// -keep leaves the namespaces for the hand runs; each apply reuses them.
	var labRuns, handRuns []float64
	for i := 0; i < 5; i++ {
		if out, err := exec.Command(labBin, "-chdir="+dir, "apply", "-auto-approve", "-keep").CombinedOutput(); err != nil {
			b.Fatalf("apply: %v\n%s", err, out)
		}
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		id, _ := rs.Latest()
		_, recs, err := rs.Load(id)
		if err != nil || len(recs) != 1 {
			b.Fatalf("results: %v (%d)", err, len(recs))
		}
		labRuns = append(labRuns, recs[0].Metrics.ThroughputBps)
		// The namespaces' names carry the workspace's hash: read them off
		// the state, as the kept machines are named there.
		server, client := keptNamespace(b, dir, "pair.veth.server"), keptNamespace(b, dir, "pair.veth.client")
		handRuns = append(handRuns, handRun(b, server, client, "198.18.0.1"))
	}
	ml, mh := median(labRuns), median(handRuns)
	ratio := ml / mh
	b.ReportMetric(ratio, "lab/hand-ratio")
	fmt.Printf("fidelity: lab median %.2f Gb/s, hand-run median %.2f Gb/s, ratio %.3f (target within ±3%%), load %s\n  lab:  %v\n  hand: %v\n",
		ml/1e9, mh/1e9, ratio, loadAvg(), gbps(labRuns), gbps(handRuns))
}

// BenchmarkPlanCLI10k runs `lab plan` on a generated 10,000-cell matrix
// and reports its wall time and peak RSS. Targets: < 1 s, < 200 MB.
func BenchmarkPlanCLI10k(b *testing.B) {
	vals := func(base int) string {
		var s []string
		for i := 0; i < 10; i++ {
			s = append(s, fmt.Sprint(base+i))
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	src := fmt.Sprintf(`
template "t" {}
pair "p" { template = template.t }
experiment "e" {
  pairs  = [pair.p]
  matrix = { mtu = %s, streams = %s, a = %s, b = %s }
  guest {
    mtu    = matrix.mtu
    sysctl = { "net.core.rmem_max" = matrix.a * 1000 + matrix.b }
  }
  iperf3 { parallel = matrix.streams }
}`, vals(1500), vals(1), vals(1), vals(1))
	dir := labDirB(b, "bench-plan", src)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(labBin, "-chdir="+dir, "plan")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if err != nil || !strings.Contains(string(out), "10000 runs") {
			b.Fatalf("plan: %v\n%.2000s", err, out)
		}
		rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // KiB → MiB
		b.ReportMetric(wall.Seconds(), "s-wall")
		b.ReportMetric(rss, "MiB-maxrss")
		fmt.Printf("lab plan: 10000 cells in %.3fs (ratio %.2f to the 1 s target), peak RSS %.0f MiB (ratio %.2f to 200 MB), load %s\n",
			wall.Seconds(), wall.Seconds(), rss, rss*1.048576/200, loadAvg())
	}
}

// handRun runs iperf3 the way a person would, pinned like lab pins:
// server on CPU 0, client on CPU 1.
func handRun(b *testing.B, serverNS, clientNS, addr string) float64 {
	srv := exec.Command("ip", "netns", "exec", serverNS, "taskset", "-c", "0", "iperf3", "-s", "-1", "-p", "5999", "-B", addr)
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	var lastErr error
	for try := 0; try < 100; try++ {
		time.Sleep(20 * time.Millisecond)
		// iperf3 3.12 exits 0 when it cannot connect: the JSON says so.
		out, err := exec.Command("ip", "netns", "exec", clientNS, "taskset", "-c", "1", "iperf3", "-c", addr, "-p", "5999", "-J", "-t", "3").Output()
		if err != nil {
			lastErr = err
			continue
		}
		s, err := (&iperf3.Runner{}).Parse(bench.Raw{Client: string(out)})
		if err != nil {
			lastErr = err
			continue
		}
		return s.ThroughputBps
	}
	b.Fatalf("hand-run iperf3 never connected: %v", lastErr)
	return 0
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func gbps(xs []float64) string {
	var p []string
	for _, x := range xs {
		p = append(p, fmt.Sprintf("%.1f", x/1e9))
	}
	return strings.Join(p, " ")
}

func needNamespacesB(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	if _, err := exec.LookPath("iperf3"); err != nil {
		b.Skip("needs iperf3")
	}
}

func labDirB(b *testing.B, name, body string) string {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(fmt.Sprintf("lab %q {}\n%s", name, body)), 0o644)
	return dir
}

// keptNamespace is the namespace of a machine kept in dir's state.
func keptNamespace(b *testing.B, dir, address string) string {
	b.Helper()
	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		b.Fatal(err)
	}
	r, ok := st.Find(address)
	if !ok {
		b.Fatalf("%s not in state", address)
	}
	return r.ID
}

// BenchmarkAdaptiveRepeats measures what adaptive repeats save: the same
// 4-cell local matrix with a fixed repeat = 10 and with
// repeat = { min = 3, max = 10, until = "ci < 5%" }; it reports the wall
// time ratio and how many cells each left with a 95 % CI narrower than
// ±5 % (a decided cell). Target: ≤ 0.6 × the time per decided cell.
// "Decided" here is the width rule's own stopping criterion, so this
// measures wall time on real runs, not accuracy: decision accuracy
// against a known true mean, for until = "verdict", is
// internal/results' BenchmarkAdaptiveVerdict.
func BenchmarkAdaptiveRepeats(b *testing.B) {
	needNamespacesB(b)
	lab := func(repeat string) string {
		return `
template "host" {}
pair "veth" {
  template = template.host
  vcpu     = 1
}
experiment "adaptive" {
  pairs  = [pair.veth]
  matrix = { mtu = [1500, 9000], streams = [1, 2] }
  repeat = ` + repeat + `
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "2s"
    omit     = "0s"
    parallel = matrix.streams
  }
}
`
	}
	measure := func(name, repeat string) (wall time.Duration, decided int, runs int) {
		dir := labDirB(b, name, lab(repeat))
		start := time.Now()
		if out, err := exec.Command(labBin, "-chdir="+dir, "apply", "-auto-approve").CombinedOutput(); err != nil {
			b.Fatalf("apply: %v\n%s", err, out)
		}
		wall = time.Since(start)
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		id, _ := rs.Latest()
		_, recs, err := rs.Load(id)
		if err != nil {
			b.Fatal(err)
		}
		for _, g := range results.Group(recs) {
			s := g.ThroughputBps
			if s.Known && s.Mean > 0 && s.HalfWidth()/s.Mean < 0.05 {
				decided++
			}
		}
		return wall, decided, len(recs)
	}
	for i := 0; i < b.N; i++ {
		fw, fd, fr := measure("bench-fixed", "10")
		aw, ad, ar := measure("bench-adapt", `{ min = 3, max = 10, until = "ci < 5%" }`)
		perFixed, perAdapt := fw.Seconds()/float64(max(fd, 1)), aw.Seconds()/float64(max(ad, 1))
		ratio := perAdapt / perFixed
		b.ReportMetric(ratio, "adaptive/fixed-s-per-decided")
		fmt.Printf("adaptive repeats: fixed repeat=10 %.1fs, %d runs, %d/4 cells decided; adaptive %.1fs, %d runs, %d/4 decided; "+
			"seconds per decided cell ratio %.2f (target <= 0.6), load %s\n", fw.Seconds(), fr, fd, aw.Seconds(), ar, ad, ratio, loadAvg())
	}
}

// loadOne is the 1-minute figure of a loadAvg string (0 when unknown).
func loadOne(s string) float64 {
	f, _ := strconv.ParseFloat(strings.Fields(s + " 0")[0], 64)
	return f
}

// metOrNot is a target line's verdict.
func metOrNot(ok bool) string {
	if ok {
		return "MET"
	}
	return "NOT met"
}
