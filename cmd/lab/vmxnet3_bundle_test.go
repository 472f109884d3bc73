package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/bundle"
	"github.com/lab-bench/lab/internal/results"
)

// TestVmxnet3BundleRecords reads the pinned bundle's records — a real
// apply of examples/kvm-vmxnet3-vs-virtio under TCG — with the checks
// TestKVM/vmxnet3_vs_virtio makes on the run that reproduces it: every guest ran
// its model's Linux driver (vmxnet3, virtio_net) with the MTU and LRO
// asked, LRO on by default on vmxnet3 and fixed off on virtio_net, and
// every record says the NIC was QEMU's device, vmxnet3 not ESXi's.
func TestVmxnet3BundleRecords(t *testing.T) {
	dir := "../../testdata/bundles/kvm-vmxnet3-vs-virtio"
	info, err := bundle.ReadInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := (results.Store{Dir: filepath.Join(dir, bundle.RecordsDir)}).Load(info.RunID)
	if err != nil || len(recs) == 0 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	for _, msg := range vmxnet3Records(recs) {
		t.Error(msg)
	}
	want := map[string]string{"vmxnet3": "qemu-vmxnet3-not-ESXi", "virtio": "qemu-virtio"}
	for _, r := range recs {
		if hs := r.Provenance.HostSettings["server"]; !containsWord(hs, "nic_device="+want[r.Pair]) {
			t.Errorf("%s %s: host settings %q do not name the NIC device %s", r.Pair, r.CellKey, hs, want[r.Pair])
		}
	}
	for _, line := range vmxnet3Figures(recs) {
		t.Logf("%s", line)
	}
}

// containsWord reports whether the space-separated list s holds w.
func containsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}
