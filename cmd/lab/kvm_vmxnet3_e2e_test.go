package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// pinnedVmxnet3 is the pinned bundle TestKVM reproduces for real in the
// harness: examples/kvm-vmxnet3-vs-virtio under TCG, 10 cells in 2 blocks
// of 2 s runs (its bundle.json and docs/ci-recipe.md give its margins).
const pinnedVmxnet3 = "../../testdata/bundles/kvm-vmxnet3-vs-virtio"

// kvmVmxnet3 reproduces the pinned vmxnet3 bundle in the harness, as
// `make reproduce` does (the harness's pool and key as -var), and fails
// when lab's verdict is not reproduced (exit 2; the exit status must match
// the verdict): a pair of guests with QEMU's vmxnet3 beside a pair with
// virtio-net, their runs interleaved. The new run's records must show
// each guest with the driver of its model (Linux vmxnet3 and virtio_net,
// as `ethtool -i` names them), the MTU and LRO asked (LRO toggles on
// vmxnet3; virtio_net's stays off [fixed]) and the link speed each model
// claims: QEMU's vmxnet3 1000Mb/s (VMXNET3_LINK_SPEED, hw/net/vmxnet3.c),
// virtio-net none ("unknown": QEMU's "speed" property is SPEED_UNKNOWN by
// default). Destroy must leave nothing.
func kvmVmxnet3(t *testing.T, e kvmEnv) {
	pinned, err := filepath.Abs(pinnedVmxnet3)
	if err != nil {
		t.Fatal(err)
	}
	info, err := bundle.ReadInfo(pinned)
	if err != nil {
		t.Fatal(err)
	}
	// LAB_KVM_KEEP=DIR keeps the reproduction's directory (spec, state,
	// results) under DIR: its run can be judged again (lab reproduce
	// -results) or counted as one more apply when the margins are measured.
	root := t.TempDir()
	if keep := os.Getenv("LAB_KVM_KEEP"); keep != "" {
		if root, err = os.MkdirTemp(keep, "vmxnet3-"); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(root, "work")
	defer func() {
		if _, err := os.Stat(work); err != nil {
			return // reproduce stopped before it made its work directory
		}
		if out, err := e.cmd(work, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if left := leftovers(t, e, info.Lab); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
	}()
	start, load0 := time.Now(), loadAverage()
	args := append([]string{"netns", "exec", e.ns, labBin, "reproduce", "-auto-approve", "-json", "-work", work}, e.vars()...)
	cmd := exec.Command("ip", append(args, pinned)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("reproduce %s: %v, load average %s before, %s after", info.Lab, time.Since(start).Round(time.Second), load0, loadAverage())
	r := lastReproduction(t, stdout.String(), stderr.String())
	checkExit(t, r, err, false)
	if r.Verdict == verdicts.NotReproduced {
		t.Errorf("the pinned bundle %s is not reproduced here (margin %.0f %%, shape margin %.0f %%)", info.Lab, 100*r.Margin, 100*r.ShapeMargin)
	}
	t.Logf("verdict %s (margin %.0f %%, shape margin %.0f %%)", r.Verdict, 100*r.Margin, 100*r.ShapeMargin)
	for _, line := range reproductionLines(r) {
		t.Log(line)
	}
	_, recs, err := results.Store{Dir: filepath.Join(work, "results")}.Load(r.NewRun)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 20 {
		t.Errorf("%d records, want 20 (10 cells x 2 blocks)", len(recs))
	}
	for _, msg := range append(vmxnet3Records(recs), vmxnet3LinkSpeeds(recs)...) {
		t.Error(msg)
	}
	for _, line := range vmxnet3Figures(recs) {
		t.Logf("figures: %s", line)
	}
}

// reproductionLines are r's cell, shape and expect verdicts, one a line.
func reproductionLines(r operation.Reproduction) []string {
	var out []string
	for _, c := range r.Cells {
		out = append(out, fmt.Sprintf("cell %s: %+.1f %%: %s", c.Experiment+"/"+c.Pair+" "+c.CellKey, 100*c.RelDiff, c.Verdict))
	}
	for _, s := range r.Shapes {
		out = append(out, fmt.Sprintf("shape %s/%s %s/%s: log ratio %+.3f published, %+.3f here; change %+.1f %% [%+.1f %%, %+.1f %%]: %s",
			s.Experiment, s.Pair, s.CellKey, s.Reference, s.PublishedShape.Mean, s.NewShape.Mean, 100*s.Change, 100*s.ChangeLow, 100*s.ChangeHigh, s.Verdict))
	}
	for _, x := range r.Expects {
		out = append(out, fmt.Sprintf("expect %q: %s", x.Name, x.Verdict))
	}
	return out
}

// vmxnet3LinkSpeeds checks the link speed each end's driver reported, as
// the record's provenance holds it: 1000Mb/s on QEMU's vmxnet3, "unknown"
// on virtio-net (see kvmVmxnet3).
func vmxnet3LinkSpeeds(recs []results.Record) []string {
	want := map[string]string{"vmxnet3": "1000Mb/s", "virtio": "unknown"}
	var bad []string
	for _, r := range recs {
		if p := r.Provenance; r.Error == "" && (p.ServerLinkSpeed != want[r.Pair] || p.ClientLinkSpeed != want[r.Pair]) {
			bad = append(bad, fmt.Sprintf("%s/%s %s: link speed %q/%q, want %q", r.Experiment, r.Pair, r.CellKey, p.ServerLinkSpeed, p.ClientLinkSpeed, want[r.Pair]))
		}
	}
	return bad
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
