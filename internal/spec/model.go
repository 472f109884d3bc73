package spec

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// Lab is a decoded lab directory: every *.hcl file in it, variables resolved.
type Lab struct {
	Name        string
	Description string
	// Dir is the lab directory as given to Load.
	Dir string
	// Files are the parsed files by file name, kept for diagnostics.
	Files map[string]*hcl.File
	// Hash is the sha256 (hex) over the sorted file names and contents.
	Hash string
	// Variables are the final variable values (defaults, -var-file, -var,
	// LAB_VAR_x environment). Sensitive ones are listed in Sensitive.
	Variables map[string]cty.Value
	Sensitive map[string]bool
	// Providers by key "type.name" ("local.default").
	Providers map[string]*Provider
	Templates map[string]*Template
	Pairs     map[string]*Pair
	// Experiments in the order they appear (files sorted by name).
	Experiments []*Experiment
	// Published are the published tables by name.
	Published map[string]*Published

	evalCtx *hcl.EvalContext
	// derived are the texts computed from sensitive variables by the
	// lab's expressions, by a label unique per value (see findDerived).
	derived map[string]string
	// hidden are the files whose source diagnostics must not show, with
	// the reason (see diagtext.HiddenSource).
	hidden map[string]string
}

// EvalContext is what expressions outside experiments are evaluated with:
// var.* and the functions (env, file, go-cty's stdlib). Providers decode
// their blocks with it (phase two), so provider "vsphere" can say
// url = var.vcenter. Nil when the lab did not load.
func (l *Lab) EvalContext() *hcl.EvalContext { return l.evalCtx }

// Provider is a provider block. Its body is decoded later by the provider
// itself (the second decode phase), against the provider's own schema.
type Provider struct {
	Type      string
	Name      string
	Body      hcl.Body
	DeclRange hcl.Range
}

// Key is "type.name", the way templates refer to a provider.
func (p *Provider) Key() string { return p.Type + "." + p.Name }

// Template is a template block: what guests are made from.
type Template struct {
	Name string
	// Provider is the key ("local.default") of the provider that makes
	// guests from this template.
	Provider string
	Source   string
	OS       string // "linux" (default) or "freebsd"
	// SSH tells how to reach guests made from the template.
	SSH *machine.Login
	// CloudInit is the cloud_init {} block: the source is a cloud image
	// lab seeds at first boot. CloudInitRange is where the block is.
	CloudInit      *machine.CloudInit `json:",omitempty"`
	CloudInitRange hcl.Range          `json:"-"`
	DeclRange      hcl.Range
}

// Pair is a pair block: a server and a client guest joined by a link.
type Pair struct {
	Name string
	// Server and Client are template names; equal when the pair uses one
	// template for both ends.
	Server string
	Client string
	// Via is the template of a router guest the traffic crosses (seed 001's
	// client → firewall → server); empty for a direct link.
	Via       string
	VCPU      int // 0: the template's/provider's default
	MemoryMiB int
	NIC       machine.NIC
	// LinkMTU is the MTU of the link joining the pair on the host side
	// (vSwitch, bridge, veth); 0 leaves it to the guest settings.
	LinkMTU int
	// Addresses are the ends' benchmark addresses with their prefix, by
	// role ("server", "client"), on an existing network whose addresses
	// are the user's (a cross pair's end on a back end that addresses its
	// machines itself: Capabilities.LinkAddresses). nil: the back ends'.
	Addresses map[string]string `json:",omitempty"`
	DeclRange hcl.Range
	// Ranges are where its attributes are written (see RangeOf).
	Ranges map[string]hcl.Range `json:"-"`
}

// Experiment is an experiment block.
type Experiment struct {
	Name        string
	Description string
	Pairs       []string
	// Matrix dimensions in the order written.
	Matrix []Dimension
	Repeat int // default 1; with adaptive repeats, the most a cell runs
	// Adaptive repeats (repeat = { min, max, until }): every cell runs at
	// least MinRepeat times, then stops as soon as its throughput's 95 %
	// confidence interval is narrower than ±UntilCI of its mean (a
	// fraction: 0.03 for "ci < 3%"), and at the latest after Repeat runs.
	// MinRepeat 0: every cell runs Repeat times. With UntilVerdict
	// (until = "verdict") instead of UntilCI, a cell stops once the
	// group-sequential band rule (results.GroupSeqLook) decides its
	// throughput expectation; a cell without one runs Repeat times.
	MinRepeat    int
	UntilCI      float64
	UntilVerdict bool
	// Budget (budget = "10m") runs as many complete blocks as fit in that
	// much benchmark wall time (warm-ups not counted), at most Repeat, and
	// stops once every band is decided (UntilVerdict is set with it).
	Budget time.Duration
	Warmup int // runs discarded before the repeats
	// Order is OrderRandom (the default: every block holds each pair and
	// cell once, in an order drawn from the plan's seed), OrderInterleaved
	// (every cell once per round, in matrix order, pair after pair) or
	// OrderSequential (a cell's repeats back to back).
	Order string
	// Concurrent runs every cell on all Pairs at the same moment: one
	// flow per pair, their clients started together (concurrent = true).
	Concurrent bool
	// Design is DesignDuet (design = "duet": the two cells at once on the
	// two pairs, swapped every second repeat) or "" for the blocks Order
	// lays out.
	Design string `json:",omitempty"`
	// Background is the load run on each pair while its measured
	// benchmark runs (background { … }); nil without one.
	Background *Background `json:",omitempty"`
	Expects    []*Expect
	// IPVersion is what the benchmark runs over (ip_version): IPv4 (""),
	// IPv6 or IPDual; IPVersionRange is where it is written (empty when
	// it is not).
	IPVersion      string
	IPVersionRange hcl.Range
	DeclRange      hcl.Range

	// eval holds the unevaluated per-cell expressions; set by the decoder.
	eval *cellExprs
}

// Run orders of an experiment's repeats.
const (
	OrderRandom      = "random"
	OrderInterleaved = "interleaved"
	OrderSequential  = "sequential"
)

// Dimension is one matrix key and its values in the order written.
type Dimension struct {
	Name   string
	Values []cty.Value
}

// CellSpec is what an experiment asks for in one cell (one combination of
// matrix values), after evaluating its expressions.
type CellSpec struct {
	Server guest.Settings
	Client guest.Settings
	// Router is the router guest's settings when the pair goes via one.
	Router guest.Settings
	Bench  bench.Params
	// Background is the load run during Bench (the experiment's
	// background block, its duration fitted to the cell); nil without one.
	Background *bench.Params `json:",omitempty"`
	// Hardware overrides the pair's hardware for this cell; zero fields
	// keep the pair's values. Changing it changes the hardware shape.
	VCPU      int
	MemoryMiB int
}

// Expect is an expect block: a published number the results must meet.
type Expect struct {
	Name string
	// Where selects cells by matrix values; the key "pair" selects a pair.
	Where       map[string]cty.Value
	Throughput  *Absolute
	Retransmits *Absolute
	Ratio       *Ratio
	// Metrics are expectations on other metrics (latency, transactions,
	// loss, jitter), in the results' metric keys.
	Metrics []MetricExpect
	// Published checks every cell of a published table (those Where
	// selects) for equivalence within ± Margin; Order checks that the
	// table's ordering of its cells holds (published.go).
	Published *PublishedCheck
	Order     *PublishedCheck
	DeclRange hcl.Range
}

// PublishedCheck refers to a published table (by name) with a relative
// margin (a fraction: 0.10 for "10%").
type PublishedCheck struct {
	Table  string
	Margin float64
	Range  hcl.Range `json:"-"`
}

// MetricExpect is an expectation on one metric, named by its key in the
// results' catalogue ("latency_p99_us", "loss_pct"): a band, Value ±
// Tolerance × Value, or with Max a maximum of the mean.
type MetricExpect struct {
	Metric    string
	Value     float64
	Tolerance float64
	Max       bool
}

// Absolute is an absolute expectation with a relative tolerance.
type Absolute struct {
	Value     float64 // Gb/s for throughput, a count for retransmits
	Tolerance float64 // fraction: 0.15 for "15%"
}

// Ratio compares two groups of cells: mean(of) / mean(over). With
// Published, the expected ratio is the published table's ratio of the
// same two cells, within ×(1 ± Margin); AtLeast and Between are then unset.
type Ratio struct {
	Of      string // "lro=true"
	Over    string // "lro=false"
	AtLeast float64
	Between [2]float64 // zero when unset
	// Published is a published table's name ("" when unset).
	Published string  `json:",omitempty"`
	Margin    float64 `json:",omitempty"`
	// PublishedRange is where the reference is written.
	PublishedRange hcl.Range `json:"-"`
}
