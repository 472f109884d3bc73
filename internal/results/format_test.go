package results

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
)

// fullRecord is a record with the fields lab's own types hold set (the
// guest's settings and the tool's sample are pinned by their packages'
// tests), so that the golden file pins the record's encoding.
func fullRecord() Record {
	mtu := 9000
	return Record{
		Schema: Schema, RunID: "20261129T234501Z", Lab: "vmx", Experiment: "mtu", Pair: "fast",
		Cell: []CellValue{{Name: "mtu", Value: "9000"}}, CellKey: "mtu=9000", CellIndex: 1, Repeat: 2, Warmup: true,
		Intent: Intent{Server: guest.Settings{MTU: mtu}, Router: &guest.Settings{}, Bench: bench.Params{Tool: "iperf3"},
			VCPU: 2, MemoryMiB: 2048, NIC: &NIC{Model: "virtio", Queues: 2, Host: map[string]bool{"tso": false}, RXQueueSize: 1024, TXQueueSize: 512},
			LinkMTU: 9000},
		Observed: Observed{Server: guest.Observed{MTU: 9000}, Router: &guest.Observed{}},
		Metrics:  bench.Sample{ThroughputBps: 9.4e9, SenderBps: 9.5e9, Retransmits: 3},
		HostCPU: &HostCPUPair{Server: machine.HostCPU{BusyPct: 41.5, MHz: 2100, Source: "vsphere:cpu.usage.average"},
			Client: machine.HostCPU{BusyPct: 12.25, Source: "libvirt:cpu_time"}},
		Raw: bench.Raw{Client: "client output", Server: "server output",
			Start: time.Date(2026, 11, 29, 23, 45, 2, 0, time.UTC), End: time.Date(2026, 11, 29, 23, 45, 12, 0, time.UTC)},
		Provenance: Provenance{LabVersion: "0.3.0", LabFileHash: "sha256:aa", GitCommit: "c5d1ce8", GitDirty: true, Provider: "vsphere",
			Host: "h", ServerKernel: "6.1", ClientKernel: "14.2", ToolVersion: "iperf 3.16",
			ServerMachine: "pair.fast.server", ClientMachine: "pair.fast.client", ServerTemplateID: "t1", ClientTemplateID: "t2",
			ServerDriver: "vmxnet3", ClientDriver: "vmx", ServerFirmware: "f1", ClientFirmware: "f2",
			ServerCPUModel: "Xeon", ClientCPUModel: "EPYC", LockDigest: "sha256:bb",
			HostSettings: map[string]string{"server": "host-21: Net.Vmxnet3HwLRO=1"}, Apply: "20261129T234501Z",
			Footprint:  []string{"vsphere host vc/host-21"},
			Overlapped: []Overlap{{Experiment: "mtu", Pair: "slow", CellKey: "mtu=1500", Repeat: 1, Footprint: []string{"vsphere host vc/host-22"}}}},
		Start: time.Date(2026, 11, 29, 23, 45, 1, 0, time.UTC), End: time.Date(2026, 11, 29, 23, 45, 13, 0, time.UTC),
		Error: "iperf3: interrupted", Disturbed: "CPU steal 6.0% on the server",
	}
}

// TestRecordFormat pins a record file (schema 2) byte for byte, and that
// Load reads it back as it was written. A change here needs a Schema bump.
func TestRecordFormat(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	r, err := s.NewRun(RunInfo{ID: "20261129T234501Z", Lab: "vmx", Started: started})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Write(fullRecord()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(r.Dir(), RecordPath(fullRecord()))
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "record.golden")
	golden.Check(t, path, b)

	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, want, 0o644); err != nil {
		t.Fatal(err)
	}
	_, recs, err := s.Load(r.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !reflect.DeepEqual(recs[0], fullRecord()) {
		t.Errorf("Load(record.golden) = %+v\nwant %+v", recs, fullRecord())
	}
}
