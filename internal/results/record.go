// Package results holds the record written for every benchmark run — intent,
// observed settings, metrics, raw tool output and provenance — and the store
// that lays records out under the lab's results/ directory.
package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// Schema is the record format version. 2: a tool's JSON output is
// embedded in raw as JSON instead of an escaped string (bench.Raw reads
// both), and metrics may carry intervals, latency, packets and the
// router's CPU. Records of schema 1 read as before.
const Schema = 2

// Record is one benchmark run.
type Record struct {
	Schema     int    `json:"schema"`
	RunID      string `json:"run_id"` // one apply = one run id ("20261129T232100Z")
	Lab        string `json:"lab"`
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	// Cell is the matrix values of this run in matrix order, and CellKey
	// their canonical rendering ("mtu=1500,gro=false,streams=1").
	Cell    []CellValue `json:"cell"`
	CellKey string      `json:"cell_key"`
	// CellIndex is the cell's 0-based position in the expanded matrix; it
	// orders cells in reports (matrix order, not alphabetical).
	CellIndex int  `json:"cell_index"`
	Repeat    int  `json:"repeat"` // 1-based
	Warmup    bool `json:"warmup,omitempty"`

	Intent   Intent       `json:"intent"`
	Observed Observed     `json:"observed"`
	Metrics  bench.Sample `json:"metrics"`
	// HostCPU is each end's CPU use seen from the hypervisor, where the
	// provider can measure it (vSphere, libvirt); nil elsewhere.
	HostCPU *HostCPUPair `json:"host_cpu,omitempty"`
	// Counters are what changed on each end during the run — TCP
	// counters, the NIC's interrupts — with the NIC's and CPUs' facts
	// (guest.Counters); nil for records written before, and for an end
	// whose OS reads none.
	Counters   *RunCounters `json:"counters,omitempty"`
	Raw        bench.Raw    `json:"raw"`
	Provenance Provenance   `json:"provenance"`
	Start      time.Time    `json:"start"`
	End        time.Time    `json:"end"`
	// Error is set when the run failed; Metrics is then empty.
	Error string `json:"error,omitempty"`
	// Disturbed says why the run's figures may be a neighbour's as much
	// as the guests' (CPU steal above DisturbedSteal percent on an end).
	Disturbed string `json:"disturbed,omitempty"`
	// Flow is set on the record of a run that started at the same moment
	// as other pairs' runs of its cell (a concurrent experiment); nil for
	// a run that ran alone, and in records written before.
	Flow *Flow `json:"flow,omitempty"`
	// Background is the load that ran on the pair during the benchmark
	// (the experiment's background block); nil without one.
	Background *Background `json:"background,omitempty"`
	// Environment is the runner's CPU pressure and load average during
	// the benchmark; nil in records written before, and in those of a
	// run that failed before its benchmark.
	Environment *Environment `json:"environment,omitempty"`
	// pooled, on a synthetic record of PoolRuns, holds the counts of the
	// apply's runs it stands for (never written).
	pooled *CountSample
	// planned is the number of repeats the run's plan gave the record's
	// cell (RunInfo.Planned; 0 when unknown), set by Store.Load.
	planned int
	// design is the block design of the record's experiment in its run
	// (RunInfo.DesignOf), set by Store.Load; "" for a record made
	// otherwise, which PairedRatio reads as DesignBlocks.
	design string
	// seq is the sequential design the cell ran under
	// (PlannedCell.Sequential), set by Store.Load.
	seq *SeqDesign
}

// CellValue is one matrix value.
type CellValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Intent is what the spec asked for.
type Intent struct {
	Server guest.Settings `json:"server"`
	Client guest.Settings `json:"client"`
	// Router is set when the pair goes via a router guest.
	Router    *guest.Settings `json:"router,omitempty"`
	Bench     bench.Params    `json:"bench"`
	VCPU      int             `json:"vcpu,omitempty"`
	MemoryMiB int             `json:"memory_mib,omitempty"`
	// NIC is the benchmark NIC's hardware the back end was asked for (both
	// ends alike); LinkMTU the host-side MTU of the link between them.
	NIC     *NIC `json:"nic,omitempty"`
	LinkMTU int  `json:"link_mtu,omitempty"`
}

// NIC is a benchmark NIC's hardware as the hypervisor makes it: model,
// queue count and the host-side offload bits fixed at boot.
type NIC struct {
	Model  string          `json:"model,omitempty"`
	Queues int             `json:"queues,omitempty"`
	Host   map[string]bool `json:"host,omitempty"`
	// RXQueueSize and TXQueueSize are the host side's virtio ring sizes
	// the spec asked (nic { rx_queue_size, tx_queue_size }).
	RXQueueSize int `json:"rx_queue_size,omitempty"`
	TXQueueSize int `json:"tx_queue_size,omitempty"`
}

// Observed is what the guests reported after the settings were applied.
type Observed struct {
	Server guest.Observed `json:"server"`
	Client guest.Observed `json:"client"`
	// Router is set when the pair goes via a router guest.
	Router *guest.Observed `json:"router,omitempty"`
}

// Provenance says where a result came from, so two records can be compared.
type Provenance struct {
	LabVersion  string `json:"lab_version"`
	LabFileHash string `json:"lab_file_hash"`
	GitCommit   string `json:"git_commit,omitempty"`
	GitDirty    bool   `json:"git_dirty,omitempty"`
	Provider    string `json:"provider"`
	// ClientProvider is the client's provider type in a cross pair, whose
	// ends two providers made (Provider is then the server's).
	ClientProvider string `json:"client_provider,omitempty"`
	Host           string `json:"host"` // hostname of the machine running lab
	ServerKernel   string `json:"server_kernel,omitempty"`
	ClientKernel   string `json:"client_kernel,omitempty"`
	ToolVersion    string `json:"tool_version,omitempty"`
	// ServerMachine and ClientMachine are the machines' resource addresses
	// ("pair.veth.server"); the template ids are what the provider reports
	// as the identity of the image they were made from (vSphere template
	// instance UUID, libvirt base-volume checksum, bhyve snapshot GUID).
	ServerMachine    string `json:"server_machine,omitempty"`
	ClientMachine    string `json:"client_machine,omitempty"`
	ServerTemplateID string `json:"server_template_id,omitempty"`
	ClientTemplateID string `json:"client_template_id,omitempty"`
	ServerDriver     string `json:"server_driver,omitempty"`
	ClientDriver     string `json:"client_driver,omitempty"`
	// ServerFirmware and ClientFirmware are the NICs' firmware versions
	// (`ethtool -i`), where the driver reports one.
	ServerFirmware string `json:"server_firmware,omitempty"`
	ClientFirmware string `json:"client_firmware,omitempty"`
	// ServerLinkSpeed and ClientLinkSpeed are the link speeds the NICs'
	// drivers report ("1000Mb/s", "unknown"): what an emulated device
	// claims (QEMU's vmxnet3 1000Mb/s, virtio-net unknown), not what the
	// link carries.
	ServerLinkSpeed string `json:"server_link_speed,omitempty"`
	ClientLinkSpeed string `json:"client_link_speed,omitempty"`
	// ServerCPUModel and ClientCPUModel are the ends' CPU model names
	// (/proc/cpuinfo "model name", hw.model on FreeBSD).
	ServerCPUModel string `json:"server_cpu_model,omitempty"`
	ClientCPUModel string `json:"client_cpu_model,omitempty"`
	// LockDigest is the sha256 of the lab's .lab.lock.hcl when the run
	// started: two results with the same digest ran on the same pinned
	// templates, kernels, drivers and tool versions.
	LockDigest string `json:"lock_digest,omitempty"`
	// HostSettings are hypervisor-wide settings of the hosts the machines
	// ran on that change results ("server", "client": vSphere's
	// "host-21: Net.Vmxnet3HwLRO=1 Net.Vmxnet3SwLRO=1"), from providers
	// that report them (providers.HostSettingsReporter).
	HostSettings map[string]string `json:"host_settings,omitempty"`
	// Apply is the apply that wrote the record (ApplyID): the run's id for
	// the apply that started the run, another for one that resumed it.
	Apply string `json:"apply,omitempty"`
	// IPVersion, ServerAddr and ClientAddr are the IP version a run over
	// IPv6 went over ("6", "dual": intent.bench.ip_version) and the ends'
	// IPv6 addresses it ran between; empty for IPv4 runs, whose records
	// keep the format they had.
	IPVersion  string `json:"ip_version,omitempty"`
	ServerAddr string `json:"server_addr,omitempty"`
	ClientAddr string `json:"client_addr,omitempty"`
	// Footprint and Overlapped are set when the apply ran runs at once
	// (lab apply -runs-at-once N > 1): the physical resources the run
	// loaded, as its provider proved them just before it started
	// (providers.Footprint; ["everything"] when unproven, and such a run
	// ran alone), and the runs whose benchmarks measured while this one's
	// did (their measured windows, Raw.Start to Raw.End, intersect; a run
	// merely configuring its guests meanwhile is not one) — each with its
	// own footprint, none of which met this one. Empty for
	// runs of an apply that ran one at a time, whose records keep the
	// format they had.
	Footprint  []string  `json:"footprint,omitempty"`
	Overlapped []Overlap `json:"overlapped,omitempty"`
}

// Overlap is a run whose benchmark measured at the same time as a
// record's run's (Provenance.Overlapped), named as its own record names it.
type Overlap struct {
	Experiment string   `json:"experiment"`
	Pair       string   `json:"pair"`
	CellKey    string   `json:"cell_key"`
	Repeat     int      `json:"repeat"`
	Footprint  []string `json:"footprint"`
}

// HostCPUPair is both ends' hypervisor-side CPU use during a run.
type HostCPUPair struct {
	Server machine.HostCPU `json:"server"`
	Client machine.HostCPU `json:"client"`
}

// hostCPUJSON is a machine.HostCPU in a record, so that the record's
// encoding is the record's own (TestRecordFormat pins the bytes).
type hostCPUJSON struct {
	BusyPct float64 `json:"busy_pct"`
	MHz     float64 `json:"mhz,omitempty"`
	Source  string  `json:"source"`
}

// hostCPUPairJSON is a HostCPUPair in a record.
type hostCPUPairJSON struct {
	Server hostCPUJSON `json:"server"`
	Client hostCPUJSON `json:"client"`
}

// MarshalJSON writes p in the record's encoding.
func (p HostCPUPair) MarshalJSON() ([]byte, error) {
	return json.Marshal(hostCPUPairJSON{Server: hostCPUJSON(p.Server), Client: hostCPUJSON(p.Client)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *HostCPUPair) UnmarshalJSON(b []byte) error {
	var in hostCPUPairJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*p = HostCPUPair{Server: machine.HostCPU(in.Server), Client: machine.HostCPU(in.Client)}
	return nil
}

// RunCounters are a run's counters per end (guest.CounterSnapshot.Since
// of the readings before and after the benchmark).
type RunCounters struct {
	Server *guest.CounterSnapshot `json:"server,omitempty"`
	Client *guest.CounterSnapshot `json:"client,omitempty"`
}

// DisturbedSteal is the CPU steal, in percent of an end's CPU time, above
// which a run is marked disturbed: the hypervisor gave that much of the
// guest's vCPU time to something else during the benchmark.
const DisturbedSteal = 5.0

// MarkDisturbed sets rec.Disturbed when either end's CPU steal is above
// DisturbedSteal, and reports whether it did.
//
// The runner's CPU pressure (Environment, Linux PSI) does not mark a run:
// it is a state of the runner over a whole apply, not a disturbance of
// one run. Measured 2026-12-05 on the 2-vCPU machine kind lab's CI uses:
// 7.5–9 % over every run of a quiet apply (load 1.6–1.9, the pinned
// quickstart bundle's); with other jobs sharing the VM, 97–100 % over 5–10
// s windows at load 3.5–25 whether or not a busy loop was pinned on CPU 0
// besides; and for a
// benchmark under a busy loop on every CPU (TestCPUHogDirectionForReal)
// 100 % at load 19–26 against 99.3–99.8 % for the same benchmark without
// it, whose throughput moved −85 %, −42 % and +40 % in three passes. A
// threshold that marks the hog's runs marks every run of a shared runner
// alike, and a cell whose every run is disturbed could only ever be
// inconclusive. Pressure
// is recorded and shown instead, and gates whether two runs' cells can be
// compared at all (Comparable); within one apply the block design
// (foldover blocks, paired shapes) cancels what a neighbour does to
// adjacent runs alike.
func MarkDisturbed(rec *Record) bool {
	var why []string
	for _, e := range []struct {
		end   string
		steal float64
	}{{"server", rec.Metrics.ServerCPU.Steal}, {"client", rec.Metrics.ClientCPU.Steal}} {
		if e.steal > DisturbedSteal {
			why = append(why, fmt.Sprintf("CPU steal %.1f%% on the %s", e.steal, e.end))
		}
	}
	if len(why) == 0 {
		return false
	}
	rec.Disturbed = strings.Join(why, ", ") + " (the hypervisor ran something else on its vCPUs during the run)"
	return true
}
