// Package plan turns a decoded lab and its state into a plan: the machines
// and links to create, keep, replace or destroy, and the ordered list of
// benchmark runs, with an estimate of how long it all takes.
//
// Cells are grouped by hardware shape (pair, vCPU, memory, NIC, link MTU):
// everything else a cell changes (MTU, offloads, congestion control,
// sysctls, loss, streams) is applied inside running guests, so a group's
// machines are made once and reused for all its runs.
package plan

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/internal/verdicts"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Format is the saved-plan file format version. Format 3 added
// Templates; a format 2 file loads as a plan without them (Load).
const Format = 3

// Operations an action can have.
const (
	OpCreate  = "create"  // +
	OpReplace = "replace" // -/+
	OpDelete  = "delete"  // -
	OpKeep    = "keep"    // already exists in the right shape
)

// Plan is what `lab plan` shows and `lab apply` executes.
type Plan struct {
	Format  int    `json:"format"`
	LabID   string `json:"lab_id"`
	LabHash string `json:"lab_hash"`
	// Lineage and Serial are the state's when the plan was made; a saved
	// plan refuses to apply to any other state.
	Lineage string    `json:"lineage"`
	Serial  int64     `json:"serial"`
	Created time.Time `json:"created"`
	// Vars and VarFiles are the variable arguments the plan was made with,
	// so a saved plan reloads the same spec.
	Vars     []string      `json:"vars,omitempty"`
	VarFiles []string      `json:"var_files,omitempty"`
	Groups   []*Group      `json:"groups"`
	Actions  []Action      `json:"actions"`
	Estimate time.Duration `json:"estimate"`
	// Selection says which runs of the lab the plan holds when it holds
	// only some (apply -only, -resume); AllRuns is then how many it has.
	Selection string `json:"selection,omitempty"`
	AllRuns   int    `json:"all_runs,omitempty"`
	// OrderSeed is the seed the random run order was drawn from (the
	// runs' Index is that order): `-order-seed` replays it. Zero when no
	// experiment orders its runs at random, and in plans saved before.
	OrderSeed int64 `json:"order_seed,omitempty"`
	// Design is each experiment's block design, by name (results.Design*:
	// foldover for order "random", rounds, sequential), which the run
	// records (results.RunInfo.Design) so readers know whether its runs
	// pair by block. Empty in plans saved before, whose random orders
	// were plain randomized blocks.
	Design map[string]string `json:"design,omitempty"`
	// Templates is each machine's template identity (Provider.TemplateID,
	// what the lock file pins) when the plan was made, by machine address:
	// `apply PLAN` refuses, before the first create, a template that
	// changed since. Empty for a plan made offline or of format 2.
	Templates map[string]string `json:"templates,omitempty"`
	// NetworkChanges are the changes the links would make to hosts'
	// network settings (a shared switch's MTU, a vSwitch added), as the
	// providers reported them when the plan was made (none offline).
	NetworkChanges []providers.NetworkChange `json:"network_changes,omitempty"`
	// Budgets are the experiments with a budget and the blocks the plan
	// gave each (BudgetPlan).
	Budgets []BudgetPlan `json:"budgets,omitempty"`

	workspace string // the state's workspace id, in every name and tag
	// untouched are the resource addresses of groups the selection left
	// out: their machines stay as they are, neither made nor deleted.
	untouched map[string]bool
}

// Group is the machines of one pair in one hardware shape, and the runs
// that use them, in order.
type Group struct {
	Address      string             `json:"address"` // "pair.veth" or "pair.veth[1a2b3c]"
	Pair         string             `json:"pair"`
	ProviderKey  string             `json:"provider_key"`
	ProviderType string             `json:"provider_type"`
	Shape        string             `json:"shape"`
	ShapeDesc    string             `json:"shape_desc"`
	Link         providers.LinkSpec `json:"link"`
	Server       machine.Machine    `json:"server"`
	Client       machine.Machine    `json:"client"`
	// Router and ClientLink are set when the pair goes via a router
	// guest: Link joins server and router, ClientLink router and client.
	// In a cross pair ClientLink is the client's side of the existing
	// network, made by the client's provider (Link is the server's side).
	Router     *machine.Machine    `json:"router,omitempty"`
	ClientLink *providers.LinkSpec `json:"client_link,omitempty"`
	// ClientProviderKey and ClientProviderType are set in a cross pair:
	// the client's template comes from another provider than the
	// server's, which makes the client and its side of the link
	// (ClientLink). Empty: ProviderKey makes everything.
	ClientProviderKey  string `json:"client_provider_key,omitempty"`
	ClientProviderType string `json:"client_provider_type,omitempty"`
	Runs               []Run  `json:"runs"`
}

// Cross reports whether the group is a cross pair: its ends are made by
// two providers (two hosts, or two back ends) and joined by the network
// that already exists between them.
func (g *Group) Cross() bool {
	return g.ClientProviderKey != "" && g.ClientProviderKey != g.ProviderKey
}

// ProviderKeyFor is the key of the provider that makes the group's
// resource at address: the client's provider for a cross pair's client
// and its side of the link, the group's provider for everything else.
func (g *Group) ProviderKeyFor(address string) string {
	key, _ := g.providerFor(address)
	return key
}

// ProviderTypeFor is ProviderKeyFor's provider type.
func (g *Group) ProviderTypeFor(address string) string {
	_, typ := g.providerFor(address)
	return typ
}

func (g *Group) providerFor(address string) (key, typ string) {
	if g.Cross() && (address == g.Client.Address || g.ClientLink != nil && address == g.ClientLink.Address) {
		return g.ClientProviderKey, g.ClientProviderType
	}
	return g.ProviderKey, g.ProviderType
}

// Run is one benchmark run of one cell.
type Run struct {
	Index      int                 `json:"index"` // 1-based position in the plan's run order
	Experiment string              `json:"experiment"`
	Pair       string              `json:"pair"`
	Group      string              `json:"group"`
	Cell       []results.CellValue `json:"cell"`
	CellKey    string              `json:"cell_key"`
	CellIndex  int                 `json:"cell_index"` // 0-based position in the experiment's matrix
	Repeat     int                 `json:"repeat"`     // 1-based; warmups count separately
	// MinRepeat and UntilCI are the experiment's adaptive repeats: from
	// repeat MinRepeat+1 on, the run is skipped once its cell's throughput
	// CI is narrower than ±UntilCI of the mean (see spec.Experiment).
	MinRepeat int     `json:"min_repeat,omitempty"`
	UntilCI   float64 `json:"until_ci,omitempty"`
	// UntilVerdict (until = "verdict"): from repeat MinRepeat+1 on, the
	// run is skipped once the group-sequential band rule decides every
	// band of Bands — the throughput expectations (Gb/s) that select this
	// cell — or finds more runs futile (verdicts.GroupSeqLook, with the
	// design Run.Sequential). A cell without bands runs every repeat.
	UntilVerdict bool              `json:"until_verdict,omitempty"`
	Bands        []verdicts.Target `json:"bands,omitempty"`
	// MaxRepeat is an until = "verdict" cell's most runs (repeat.max).
	MaxRepeat int  `json:"max_repeat,omitempty"`
	Warmup    bool `json:"warmup,omitempty"`
	// Budget is the experiment's budget of benchmark wall time (budget =
	// "10m"): the engine starts no block that would not fit, and stops
	// once every band of the experiment is decided. LookEvery is the
	// stopping unit in blocks (Plan.Budgets): the looks, and a budget's
	// stop, fall only after a whole number of them.
	Budget    time.Duration `json:"budget,omitempty"`
	LookEvery int           `json:"look_every,omitempty"`
	// Flows, in a concurrent experiment (concurrent = true), are the
	// pairs whose runs of this cell and repeat start at the same moment,
	// this one's included, in the experiment's pair order; those runs are
	// adjacent in the run order (Batches). Empty for a run that runs alone.
	Flows []string `json:"flows,omitempty"`
	// Duet marks a run of a design = "duet" experiment: its flows are the
	// experiment's two cells of one repeat, one on each pair (duetOrder).
	Duet bool          `json:"duet,omitempty"`
	Spec spec.CellSpec `json:"spec"`
}

// Action is one change to machines or links.
type Action struct {
	Op      string `json:"op"`
	Address string `json:"address"`
	Kind    string `json:"kind"` // "machine" or "link"
	Group   string `json:"group,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Old is the state's resource for replace and delete.
	Old *state.Resource `json:"old,omitempty"`
}

// Options are the inputs of New besides the lab and state.
type Options struct {
	Vars     []string
	VarFiles []string
	Now      time.Time
	// CreateCost and RunOverhead tune the estimate (defaults: 1 s per
	// machine, 1 s per run for configuration, observation and start-up).
	CreateCost  time.Duration
	RunOverhead time.Duration
	// Select, when set, keeps only the runs it returns true for (and the
	// groups that still have runs); Selection describes it for people.
	Select    func(Run) bool
	Selection string
	// OrderSeed seeds the random run order (0: draw one, NewOrderSeed).
	OrderSeed int64
}

// New makes the plan for lab given the current state.
func New(lab *spec.Lab, st *state.State, opt Options) (*Plan, hcl.Diagnostics) {
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	if opt.CreateCost == 0 {
		opt.CreateCost = time.Second
	}
	if opt.RunOverhead == 0 {
		opt.RunOverhead = time.Second
	}
	p := &Plan{Format: Format, LabID: lab.Name, LabHash: lab.Hash, Lineage: st.Lineage, Serial: st.Serial,
		Created: opt.Now.UTC(), Vars: opt.Vars, VarFiles: opt.VarFiles, workspace: st.Workspace()}
	if usesRandomOrder(lab) {
		p.OrderSeed = opt.OrderSeed
		if p.OrderSeed == 0 {
			p.OrderSeed = NewOrderSeed()
		}
	}
	diags := p.expand(lab, opt.RunOverhead)
	if diags.HasErrors() {
		return p, diags
	}
	if d := p.checkResultPaths(lab); d != nil {
		return p, append(diags, d)
	}
	if opt.Select != nil {
		p.selectRuns(opt.Select, opt.Selection)
	}
	p.diff(st)
	p.estimate(opt)
	if d := p.checkDuration(lab); d != nil {
		diags = append(diags, d)
	}
	return p, diags
}

// MaxQuietEstimate is the longest estimate a plan gives without warning.
const MaxQuietEstimate = 24 * time.Hour

// checkResultPaths refuses, before anything runs, a plan two of whose runs
// would write the same result file (which would fail the second one and
// lose its measurement at apply).
func (p *Plan) checkResultPaths(lab *spec.Lab) *hcl.Diagnostic {
	seen := make(map[string]Run)
	keys := make(map[[3]string]int) // experiment, pair, cell key → cell index
	for _, g := range p.Groups {
		for _, r := range g.Runs {
			// Reports and comparisons group runs by cell key: two cells
			// must not print alike (a = "x,b=1", b = "2" and a = "x",
			// b = "1,b=2" both print a=x,b=1,b=2).
			k := [3]string{r.Experiment, r.Pair, r.CellKey}
			if i, ok := keys[k]; ok && i != r.CellIndex {
				return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Two cells print alike",
					Detail: fmt.Sprintf("In experiment %q, cells %d and %d of pair %q both print as %q, so their results could not be told apart; keep \",\" and \"=\" out of matrix values.",
						r.Experiment, i+1, r.CellIndex+1, r.Pair, r.CellKey),
					Subject: experimentRange(lab, r.Experiment)}
			}
			keys[k] = r.CellIndex
			path := results.RecordPath(results.Record{Experiment: r.Experiment, Pair: r.Pair, Cell: r.Cell,
				CellKey: r.CellKey, Repeat: r.Repeat, Warmup: r.Warmup})
			prev, dup := seen[path]
			if !dup {
				seen[path] = r
				continue
			}
			return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Two runs would write the same result file",
				Detail: fmt.Sprintf("In experiment %q, the cells %q and %q of pair %q would both be stored as %s; make their matrix values differ in more than punctuation.",
					r.Experiment, prev.CellKey, r.CellKey, r.Pair, path),
				Subject: experimentRange(lab, r.Experiment)}
		}
	}
	return nil
}

// experimentRange is where experiment name is declared (nil if unknown).
func experimentRange(lab *spec.Lab, name string) *hcl.Range {
	for _, e := range lab.Experiments {
		if e.Name == name {
			return e.DeclRange.Ptr()
		}
	}
	return nil
}

// checkDuration warns when the plan is estimated to take more than
// MaxQuietEstimate, pointing at the experiment that takes longest.
func (p *Plan) checkDuration(lab *spec.Lab) *hcl.Diagnostic {
	if p.Estimate <= MaxQuietEstimate {
		return nil
	}
	per := map[string]time.Duration{}
	for _, r := range p.Runs() {
		per[r.Experiment] += r.Spec.Bench.Duration + r.Spec.Bench.Omit
	}
	var longest *spec.Experiment
	for _, e := range lab.Experiments {
		if longest == nil || per[e.Name] > per[longest.Name] {
			longest = e
		}
	}
	if longest == nil {
		return nil
	}
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Plan takes more than a day",
		Detail: fmt.Sprintf("The plan's %d runs are estimated to take %s; experiment %q alone measures for %s. Fewer matrix values, repeats or a shorter duration would shorten it.",
			len(p.Runs()), short(p.Estimate), longest.Name, short(per[longest.Name])),
		Subject: longest.DeclRange.Ptr()}
}

// expand evaluates every cell of every experiment and places its runs in
// the group of its hardware shape.
func (p *Plan) expand(lab *spec.Lab, runOverhead time.Duration) hcl.Diagnostics {
	var diags hcl.Diagnostics
	groups := map[string]*Group{}
	var rng *mrand.Rand
	if p.OrderSeed != 0 {
		rng = orderRNG(p.OrderSeed)
	}
	var seq []placed // every run, in run order
	p.Design = map[string]string{}
	for _, e := range lab.Experiments {
		p.Design[e.Name] = design(e)
		var cells []cellRuns // the experiment's cells of all its pairs, pair by pair
		for _, pairName := range e.Pairs {
			pairCells := 0
			pair := lab.Pairs[pairName]
			if pair == nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown pair",
					Detail: fmt.Sprintf("Experiment %q uses pair %q, which is not declared.", e.Name, pairName), Subject: e.DeclRange.Ptr()})
				continue
			}
			var cellDiags hcl.Diagnostics
			forEachCell(e.Matrix, func(values map[string]cty.Value, cell []results.CellValue) bool {
				cs, d := e.Eval(values)
				if d.HasErrors() {
					cellDiags = append(cellDiags, d...)
					return false
				}
				g := p.group(lab, groups, pair, cs)
				cells = append(cells, cellRuns{g, Run{Experiment: e.Name, Pair: pair.Name, Group: g.Address, Cell: cell,
					CellKey: CellKey(cell), CellIndex: pairCells, Spec: cs, MinRepeat: e.MinRepeat, UntilCI: e.UntilCI,
					UntilVerdict: e.UntilVerdict, Bands: cellBands(e, pair.Name, cell), MaxRepeat: maxRepeat(e)}})
				pairCells++
				return true
			})
			diags = append(diags, cellDiags...)
		}
		var runs []placed
		if e.Budget > 0 {
			b, d := p.budgetBlocks(e, cells, runOverhead)
			if d != nil {
				diags = append(diags, d)
				continue
			}
			e = b
		}
		switch {
		case e.Design == spec.DesignDuet:
			runs = duetOrder(e, cells)
		case e.Concurrent:
			runs = concurrentOrder(e, cells, rng)
		case e.Order != spec.OrderRandom:
			runs = experimentOrder(e, cells, rng)
			groupMajor(runs, groupIndex(p.Groups))
		default:
			runs = experimentOrder(e, cells, rng)
		}
		seq = append(seq, runs...)
	}
	for i, pr := range seq {
		pr.run.Index = i + 1
		pr.g.Runs = append(pr.g.Runs, pr.run)
	}
	return diags
}

// groupIndex is each group's position in groups.
func groupIndex(groups []*Group) map[*Group]int {
	m := make(map[*Group]int, len(groups))
	for i, g := range groups {
		m[g] = i
	}
	return m
}

// selectRuns keeps the runs keep selects, numbered anew, and the groups
// that still have runs; the others' resources are left untouched.
func (p *Plan) selectRuns(keep func(Run) bool, selection string) {
	p.Selection, p.AllRuns = selection, len(p.Runs())
	p.untouched = map[string]bool{}
	var groups []*Group
	for _, g := range p.Groups {
		g.Runs = slices.DeleteFunc(g.Runs, func(r Run) bool { return !keep(r) })
		if len(g.Runs) == 0 {
			for _, a := range g.addresses() {
				p.untouched[a] = true
			}
			continue
		}
		groups = append(groups, g)
	}
	p.Groups = groups
	p.number()
}

// addresses are the state addresses of the group's links and machines.
func (g *Group) addresses() []string {
	out := []string{g.Link.Address}
	if g.ClientLink != nil {
		out = append(out, g.ClientLink.Address)
	}
	for _, m := range g.Machines() {
		out = append(out, m.Address)
	}
	return out
}

// group returns (making it when new) the group of pair in the cell's
// hardware shape.
func (p *Plan) group(lab *spec.Lab, groups map[string]*Group, pair *spec.Pair, cs spec.CellSpec) *Group {
	vcpu, mem := pair.VCPU, pair.MemoryMiB
	if cs.VCPU > 0 {
		vcpu = cs.VCPU
	}
	if cs.MemoryMiB > 0 {
		mem = cs.MemoryMiB
	}
	ipv6 := ipv6Pair(lab, pair.Name)
	shapeDesc := describeShape(vcpu, mem, pair)
	if ipv6 {
		// Addresses are a link's from its creation: a pair an IPv6
		// experiment starts to use is made again, with them.
		shapeDesc += ", ipv6"
	}
	shape := fingerprint(pair.Name, pair.Server, pair.Client, shapeDesc)
	defaultShape := cs.VCPU == 0 && cs.MemoryMiB == 0 || vcpu == pair.VCPU && mem == pair.MemoryMiB
	address := "pair." + pair.Name
	if !defaultShape {
		address += "[" + shape[:6] + "]"
	}
	// Names are readable (lab and pair) and unique to this lab, workspace
	// and group: lab "a" with pair "b-c" and lab "a-b" with pair "c", or
	// two checkouts of one lab, never share a name.
	owner := machine.Owner{Lab: lab.Name, Workspace: p.workspace}
	name := lab.Name + "-" + pair.Name + "-" + owner.Hash(6, address)
	if g, ok := groups[address]; ok {
		return g
	}
	providerKey, provType := providerOf(lab, pair.Server)
	index := 2 * len(p.Groups) // two link address blocks per group: direct or via a router
	g := &Group{Address: address, Pair: pair.Name, ProviderKey: providerKey, ProviderType: provType, Shape: shape, ShapeDesc: shapeDesc,
		Link: providers.LinkSpec{Address: address + ".link", LabID: lab.Name, Workspace: p.workspace, Pair: pair.Name, Name: name,
			MTU: pair.LinkMTU, Index: index, IPv6: ipv6}}
	machine := func(role, templateName string) machine.Machine {
		var t machine.Template
		if tt := lab.Templates[templateName]; tt != nil {
			t = machine.Template{Name: tt.Name, Source: tt.Source, OS: tt.OS, CloudInit: tt.CloudInit}
			if tt.SSH != nil {
				login := *tt.SSH
				t.SSH = &login
			}
		}
		return machine.Machine{Address: address + "." + role, LabID: lab.Name, Workspace: p.workspace, Pair: pair.Name, Role: role,
			Name: name + "-" + role[:1], Template: t, VCPU: vcpu, MemoryMiB: mem, NIC: pair.NIC, Routed: pair.Via != "" && role != "router",
			LinkAddress: pair.Addresses[role]}
	}
	g.Server, g.Client = machine("server", pair.Server), machine("client", pair.Client)
	if pair.Via != "" {
		r := machine("router", pair.Via)
		g.Router = &r
		g.ClientLink = &providers.LinkSpec{Address: address + ".client_link", LabID: lab.Name, Workspace: p.workspace, Pair: pair.Name, Name: name + "-c",
			MTU: pair.LinkMTU, Index: index + 1, IPv6: ipv6}
	}
	if key, typ := providerOf(lab, pair.Client); key != providerKey && pair.Via == "" {
		// A cross pair: each end's provider puts it on the network that
		// joins them, each on its own side (Link, ClientLink).
		g.ClientProviderKey, g.ClientProviderType = key, typ
		g.ClientLink = &providers.LinkSpec{Address: address + ".client_link", LabID: lab.Name, Workspace: p.workspace, Pair: pair.Name, Name: name + "-c",
			MTU: pair.LinkMTU, Index: index + 1, IPv6: ipv6}
	}
	groups[address] = g
	p.Groups = append(p.Groups, g)
	return g
}

// providerOf is the key and type of the provider that makes template's
// machines ("" when the template is unknown).
func providerOf(lab *spec.Lab, template string) (key, typ string) {
	if t := lab.Templates[template]; t != nil {
		key = t.Provider
	}
	typ = key
	if pr := lab.Providers[key]; pr != nil {
		typ = pr.Type
	}
	return key, typ
}

func describeShape(vcpu, mem int, pair *spec.Pair) string {
	var parts []string
	if vcpu > 0 {
		parts = append(parts, fmt.Sprintf("%d vCPU", vcpu))
	}
	if mem > 0 {
		parts = append(parts, fmt.Sprintf("%d MiB", mem))
	}
	if pair.NIC.Model != "" {
		parts = append(parts, "nic "+pair.NIC.Model)
	}
	if pair.NIC.Queues > 0 {
		parts = append(parts, fmt.Sprintf("%d queues", pair.NIC.Queues))
	}
	if pair.NIC.RXQueueSize > 0 {
		parts = append(parts, fmt.Sprintf("rx_queue_size %d", pair.NIC.RXQueueSize))
	}
	if pair.NIC.TXQueueSize > 0 {
		parts = append(parts, fmt.Sprintf("tx_queue_size %d", pair.NIC.TXQueueSize))
	}
	for _, k := range slices.Sorted(maps.Keys(pair.NIC.Host)) {
		parts = append(parts, fmt.Sprintf("host %s=%v", k, pair.NIC.Host[k]))
	}
	if pair.LinkMTU > 0 {
		parts = append(parts, fmt.Sprintf("link mtu %d", pair.LinkMTU))
	}
	for _, role := range []string{"server", "client"} {
		if a := pair.Addresses[role]; a != "" {
			parts = append(parts, role+" at "+a)
		}
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, ", ")
}

func fingerprint(parts ...string) string {
	b, _ := json.Marshal(parts)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:16]
}

// CellKey renders a cell's matrix values canonically: "mtu=1500,gro=false".
func CellKey(cell []results.CellValue) string {
	parts := make([]string, len(cell))
	for i, c := range cell {
		parts[i] = c.Name + "=" + c.Value
	}
	return strings.Join(parts, ",")
}

// forEachCell calls fn for every combination of matrix values, the first
// dimension varying slowest. fn returns false to stop.
func forEachCell(dims []spec.Dimension, fn func(map[string]cty.Value, []results.CellValue) bool) {
	if len(dims) == 0 {
		fn(map[string]cty.Value{}, nil)
		return
	}
	idx := make([]int, len(dims))
	rendered := make([][]string, len(dims))
	for i, d := range dims {
		rendered[i] = make([]string, len(d.Values))
		for j, v := range d.Values {
			rendered[i][j] = Render(v)
		}
	}
	for {
		values := make(map[string]cty.Value, len(dims))
		cell := make([]results.CellValue, len(dims))
		for i, d := range dims {
			values[d.Name] = d.Values[idx[i]]
			cell[i] = results.CellValue{Name: d.Name, Value: rendered[i][idx[i]]}
		}
		if !fn(values, cell) {
			return
		}
		i := len(dims) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(dims[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// Render formats a matrix value for cell keys and tables.
func Render(v cty.Value) string {
	if v.IsNull() || !v.IsKnown() {
		return "null"
	}
	switch v.Type() {
	case cty.Number:
		f := v.AsBigFloat()
		if f.IsInt() {
			i, _ := f.Int(nil)
			return i.String()
		}
		return f.Text('g', -1)
	case cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	case cty.String:
		return v.AsString()
	}
	return strings.TrimSpace(fmt.Sprint(v.GoString()))
}

// Runs returns every run of the plan in run order (by Index: a plan saved
// before runs interleaved across groups numbered them group by group).
func (p *Plan) Runs() []Run {
	var out []Run
	for _, g := range p.Groups {
		out = append(out, g.Runs...)
	}
	slices.SortStableFunc(out, func(a, b Run) int { return cmp.Compare(a.Index, b.Index) })
	return out
}

// Machines are the group's machines: server, client and, for a routed
// pair, the router.
func (g *Group) Machines() []machine.Machine {
	out := []machine.Machine{g.Server, g.Client}
	if g.Router != nil {
		out = append(out, *g.Router)
	}
	return out
}

// cellBands are the throughput bands of e's expect blocks that select the
// cell (of pair), for adaptive repeats that stop on the verdict; nil
// unless e's repeat is until = "verdict". Selectors match as `lab check`
// matches them (rendered values; the key "pair" is the pair).
func cellBands(e *spec.Experiment, pair string, cell []results.CellValue) []verdicts.Target {
	if !e.UntilVerdict {
		return nil
	}
	var out []verdicts.Target
	for _, x := range e.Expects {
		if x.Throughput != nil && selects(x.Where, pair, cell) {
			out = append(out, verdicts.Target{Value: x.Throughput.Value, Tolerance: x.Throughput.Tolerance})
		}
	}
	return out
}

// selects says whether an expect block's where selects the cell.
func selects(where map[string]cty.Value, pair string, cell []results.CellValue) bool {
	for k, v := range where {
		got, ok := pair, k == "pair"
		for _, c := range cell {
			if !ok && c.Name == k {
				got, ok = c.Value, true
			}
		}
		if !ok || got != Render(v) {
			return false
		}
	}
	return true
}

// maxRepeat is an until = "verdict" cell's most runs (0 for any other).
func maxRepeat(e *spec.Experiment) int {
	if !e.UntilVerdict {
		return 0
	}
	return e.Repeat
}
