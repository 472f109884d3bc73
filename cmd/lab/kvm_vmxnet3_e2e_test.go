package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// kvmVmxnet3 applies examples/kvm-vmxnet3-vs-virtio for real under TCG,
// shortened for CI (one block of 2 s runs): a pair of guests with QEMU's
// vmxnet3 beside a pair with virtio-net, their runs interleaved. Each
// guest must come up with the driver of its model (Linux vmxnet3 and
// virtio_net, as `ethtool -i` names them), every cell must run with the
// MTU and LRO asked (LRO toggles on vmxnet3; virtio_net's stays off
// [fixed]), and destroy must leave nothing. The shapes (the example's
// expect blocks) are logged with the figures, not asserted: one block of
// 2 s runs under TCG cannot decide them (the pinned bundle's applies do).
func kvmVmxnet3(t *testing.T, e kvmEnv) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/kvm-vmxnet3-vs-virtio")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "lab.plan")
	out, err := e.cmd(dir, append([]string{"plan", "-json", "-out", file}, e.vars("duration=2s", "repeat=1")...)...).Output()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	var p struct {
		Groups []struct{ Link struct{ Name string } } `json:"groups"`
	}
	if err := json.Unmarshal(out, &p); err != nil || len(p.Groups) != 2 {
		t.Fatalf("plan -json: %v (%d groups, want one per NIC model)\n%s", err, len(p.Groups), out)
	}
	defer func() {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		for _, g := range p.Groups {
			if left := leftovers(t, e, g.Link.Name); len(left) > 0 {
				t.Errorf("left in libvirt: %v", left)
			}
		}
	}()
	start := time.Now()
	load0 := loadAverage()
	// Exit 2: an expect block failed, which one short block may do.
	if out, err := e.cmd(dir, "apply", "-auto-approve", file).CombinedOutput(); err != nil && !strings.Contains(err.Error(), "exit status 2") {
		t.Fatalf("apply: %v\n%s", err, out)
	} else {
		t.Logf("apply (load average %s before, %s after, %v):\n%s", load0, loadAverage(), time.Since(start).Round(time.Second), kvmTail(string(out), 30))
	}
	recs := loadRecords(t, dir)
	if len(recs) != 10 {
		t.Errorf("%d records, want 10 (8 cells of models, 2 of lro)", len(recs))
	}
	for _, msg := range vmxnet3Records(recs) {
		t.Error(msg)
	}
	for _, line := range vmxnet3Figures(recs) {
		t.Logf("figures: %s", line)
	}
	if out, err := e.cmd(dir, "check").CombinedOutput(); err != nil {
		t.Logf("check (not asserted, one block of 2 s runs): %v\n%s", err, out)
	} else {
		t.Logf("check:\n%s", out)
	}
}

// vmxnet3Records checks the example's records as TestKVM and the pinned
// bundle's test read them: each guest ran the driver of its pair's model
// (`ethtool -i`: Linux vmxnet3, virtio_net), with the MTU asked, and LRO as
// asked on vmxnet3, on by default there (vmxnet3_declare_features), and
// off [fixed] on virtio_net (no LRO toggle since Linux 5.11's rx-gro-hw).
func vmxnet3Records(recs []results.Record) []string {
	driver := map[string]string{"vmxnet3": "vmxnet3", "virtio": "virtio_net"}
	var bad []string
	for _, r := range recs {
		where := r.Experiment + "/" + r.Pair + " " + r.CellKey
		if r.Error != "" {
			bad = append(bad, where+": "+r.Error)
			continue
		}
		o := r.Observed
		if o.Server.Driver != driver[r.Pair] || o.Client.Driver != driver[r.Pair] {
			bad = append(bad, fmt.Sprintf("%s: drivers %q/%q, want %q", where, o.Server.Driver, o.Client.Driver, driver[r.Pair]))
		}
		if in := r.Intent; in.NIC == nil || in.NIC.Model != r.Pair || o.Server.MTU != in.Server.MTU || o.Client.MTU != in.Client.MTU {
			bad = append(bad, fmt.Sprintf("%s: NIC %+v, MTU observed %d/%d, asked %d", where, in.NIC, o.Server.MTU, o.Client.MTU, in.Server.MTU))
		}
		lro := o.Server.Offloads["lro"]
		switch want, asked := r.Intent.Server.Offloads["lro"]; {
		case asked && lro != map[bool]string{true: "on", false: "off"}[want]:
			bad = append(bad, fmt.Sprintf("%s: server lro %q, asked %v", where, lro, want))
		case r.Pair == "vmxnet3" && !asked && lro != "on":
			bad = append(bad, fmt.Sprintf("%s: vmxnet3's LRO is on by default in Linux, observed %q", where, lro))
		case r.Pair == "virtio" && !strings.Contains(lro, "fixed"):
			bad = append(bad, fmt.Sprintf("%s: virtio_net has no LRO toggle, observed %q", where, lro))
		}
	}
	return bad
}

// vmxnet3Figures is one line per cell: its runs' throughput, retransmits
// and the server's LRO, sorted.
func vmxnet3Figures(recs []results.Record) []string {
	figures := map[string][]string{}
	for _, r := range recs {
		k := r.Experiment + "/" + r.Pair + " " + r.CellKey
		figures[k] = append(figures[k], fmt.Sprintf("%.2f Gb/s, %d retransmits, lro %s", r.Metrics.ThroughputBps/1e9, r.Metrics.Retransmits, r.Observed.Server.Offloads["lro"]))
	}
	var out []string
	for k, v := range figures {
		out = append(out, k+": "+strings.Join(v, "; "))
	}
	sort.Strings(out)
	return out
}

// kvmTail is the last n lines of s.
func kvmTail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
