// Package providertest is the conformance suite every back end passes: it
// drives a provider through the public contract (package providers) the
// way the CLI and the engine do — configure, capability refusal at plan
// time, create, connect, run, template identity into the lock file,
// teardown, cancellation, close — so a new back end knows it is done when
// Conformance passes.
//
// The suite tests the provider, not the guests: it configures guests with
// a stand-in OS driver and "measures" with a stand-in benchmark runner, so
// it needs nothing inside the machines but a working transport.
package providertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Harness says how to use one back end in the suite.
type Harness struct {
	// Type is the provider type, registered with providers.Register.
	Type string
	// Provider is the body of the provider block (HCL attributes).
	Provider string
	// Template is the body of the template block: source, os, ssh {}.
	Template string
	// Pair is extra attributes of the pair block (vcpu, memory, nic {}).
	Pair string
	// LabID names the lab; the suite adds a suffix so runs never collide.
	LabID string
	// Timeout bounds each step (default 2 minutes).
	Timeout time.Duration
	// Setup, when set, prepares each provider the suite makes, before
	// Configure (a test's fake host or simulator: its environment, the
	// key it trusts, the way it dials guests).
	Setup func(t *testing.T, p providers.Provider)
	// Foreign makes, where the back end would make it, an object that lab
	// did not make (as an administrator would by hand: it carries no owner
	// tag) with the name lab gives one of g's resources. It returns that
	// resource's address and a function that describes the object as it
	// is now, "" once it is gone; the ownership case compares the
	// description before and after. nil: the back end makes nothing
	// (the hosts back end borrows machines), so nothing of lab's name can
	// be another's, and the case says so and skips.
	Foreign func(t *testing.T, g *plan.Group) (address string, look func() string)
}

// Conformance runs the suite against h's back end. Every step is a
// subtest; whatever a step creates is deleted also when it fails.
func Conformance(t *testing.T, h Harness) {
	t.Helper()
	h = h.withDefaults()
	t.Run("configure and close", func(t *testing.T) { configureAndClose(t, h) })
	t.Run("capabilities refused at plan time", func(t *testing.T) { capabilityRefusal(t, h) })
	t.Run("apply pins the template identity", func(t *testing.T) { applyPinsTemplate(t, h) })
	t.Run("cancelled connect and create", func(t *testing.T) { cancellation(t, h) })
	t.Run("foreign object of lab's name", func(t *testing.T) { foreignObject(t, h) })
}

// withDefaults fills what h leaves unset and makes its lab id unique to
// this run.
func (h Harness) withDefaults() Harness {
	if h.Timeout == 0 {
		h.Timeout = 2 * time.Minute
	}
	if h.LabID == "" {
		h.LabID = "conf"
	}
	h.LabID = fmt.Sprintf("%s%d", h.LabID, time.Now().UnixNano()%100000)
	return h
}

// Spec is the lab the suite plans: one pair of h's template, one run.
// extraPair goes into the pair block.
func (h Harness) Spec(extraPair string) string {
	return fmt.Sprintf(`lab %q {}

provider %q "conf" {
%s
}

template "t" {
  provider = provider.%s.conf
%s
}

pair "p" {
  template = template.t
%s
%s
}

experiment "e" {
  pairs = [pair.p]
  iperf3 {
    duration = "1s"
  }
}
`, h.LabID, h.Type, h.Provider, h.Type, h.Template, h.Pair, extraPair)
}

func (h Harness) load(t *testing.T, extraPair string) (*spec.Lab, providers.Provider) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(h.Spec(extraPair)), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := spec.Load(dir, spec.Options{KnownProviders: providers.Names(), SharesHostKernel: providers.SharesHostKernel})
	if diags.HasErrors() {
		t.Fatalf("the suite's spec does not load: %v\n%s", diags, h.Spec(extraPair))
	}
	p, err := providers.New(h.Type)
	if err != nil {
		t.Fatal(err)
	}
	if h.Setup != nil {
		h.Setup(t, p)
	}
	ctx := providers.WithEvalContext(context.Background(), lab.EvalContext())
	if d := p.Configure(ctx, lab.Providers[h.Type+".conf"].Body); d.HasErrors() {
		t.Fatalf("Configure: %v", d)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return lab, p
}

func configureAndClose(t *testing.T, h Harness) {
	_, p := h.load(t, "")
	c := p.Capabilities()
	for _, m := range c.NICModels {
		if m == "" {
			t.Errorf("Capabilities().NICModels holds an empty model")
		}
	}
	ctx := context.Background()
	if err := p.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	// A second Close (the cleanup's) must be safe as well.
}

// capabilityRefusal plans a pair asking for a NIC model no back end has
// and, where the back end declares no routed pairs, a router: each must
// be refused with a diagnostic on the spec line that asks for it.
func capabilityRefusal(t *testing.T, h Harness) {
	extra := "  nic {\n    model = \"conformance-no-such-nic\"\n  }"
	lab, p := h.load(t, extra)
	routed := p.Capabilities().RoutedPairs
	if !routed {
		extra += "\n  via = template.t"
		lab, p = h.load(t, extra)
	}
	pl, diags := plan.New(lab, &state.State{}, plan.Options{})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	got := plan.CheckCapabilities(pl, lab, func(string) (providers.Capabilities, bool) { return p.Capabilities(), true })
	want := map[string]string{"NIC model not supported": `model = "conformance-no-such-nic"`}
	if !routed {
		want["Routed pairs not supported"] = "via = template.t"
	}
	for summary, line := range want {
		d := findDiag(got, summary)
		if d == nil {
			t.Errorf("no %q diagnostic; got %v", summary, got)
			continue
		}
		if d.Subject == nil || filepath.Base(d.Subject.Filename) != "lab.hcl" || d.Subject.Start.Line != lineOf(h.Spec(extra), line) {
			t.Errorf("%q points at %v, want lab.hcl:%d", summary, d.Subject, lineOf(h.Spec(extra), line))
		}
	}
}

func findDiag(diags hcl.Diagnostics, summary string) *hcl.Diagnostic {
	for _, d := range diags {
		if d.Summary == summary {
			return d
		}
	}
	return nil
}

// lineOf is the 1-based line of src that contains s.
func lineOf(src, s string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// applyPinsTemplate applies the one-run lab through the engine and checks
// that every machine was reachable, that the result and the lock file
// carry the template identity the provider reports, and that teardown left
// nothing the provider can list.
func applyPinsTemplate(t *testing.T, h Harness) {
	lab, p := h.load(t, "")
	st := newState()
	pl, diags := plan.New(lab, st, plan.Options{})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	if d := plan.CheckCapabilities(pl, lab, func(string) (providers.Capabilities, bool) { return p.Capabilities(), true }); d.HasErrors() {
		t.Fatalf("the suite's plain pair is refused: %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	want, err := p.TemplateID(ctx, pl.Groups[0].Server)
	if err != nil || want == "" {
		t.Fatalf("TemplateID = %q, %v: every back end reports one", want, err)
	}
	if again, _ := p.TemplateID(ctx, pl.Groups[0].Server); again != want {
		t.Errorf("TemplateID changed between two calls: %q, %q", want, again)
	}
	res := &memResults{}
	eng := &engine.Engine{State: st, Store: nopStore{}, Providers: map[string]providers.Provider{h.Type + ".conf": p},
		OS:      func(string) (guest.OS, error) { return standInOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return standInRunner{}, nil },
		Results: res, RunID: "conformance", Lab: lab.Name}
	out, err := eng.Apply(ctx, context.Background(), pl)
	if err != nil {
		t.Fatalf("apply: %v (%+v)", err, out)
	}
	if len(res.recs) != 1 {
		t.Fatalf("%d results, want 1", len(res.recs))
	}
	rec := res.recs[0]
	if rec.Provenance.ServerTemplateID != want || rec.Provenance.ClientTemplateID != want {
		t.Errorf("result's template identity %q/%q, want %q from TemplateID", rec.Provenance.ServerTemplateID, rec.Provenance.ClientTemplateID, want)
	}
	lock := lockfile.FromRecords(res.recs)
	if got := lock.Machines["pair.p.server"].Template; got != want {
		t.Errorf("lock file pins template %q, want %q\n%s", got, want, lock.Render())
	}
	if len(st.Resources) != 0 {
		t.Errorf("state after teardown: %+v", st.Resources)
	}
	left, err := p.List(ctx, st.Owner(lab.Name))
	if err != nil {
		t.Errorf("List: %v", err)
	}
	if len(left) != 0 {
		t.Errorf("List after teardown finds %d objects: %+v", len(left), left)
	}
}

// cancellation: Create and Connect given a context that is already done
// return an error that says so, and what Create left is deleted.
func cancellation(t *testing.T, h Harness) {
	lab, p := h.load(t, "")
	pl, diags := plan.New(lab, newState(), plan.Options{})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	g := pl.Groups[0]
	bg, stop := context.WithTimeout(context.Background(), h.Timeout)
	defer stop()
	done, cancel := context.WithCancel(bg)
	cancel()

	m := g.Server
	m.Name += "x" // not the name applyPinsTemplate used
	in, err := p.Create(done, m)
	if err == nil {
		t.Errorf("Create with a cancelled context succeeded")
	}
	if in.Address == "" {
		in = machine.Instance{Address: m.Address, Provider: h.Type, Kind: "machine", Name: m.Name, Owner: m.Owner()}
	}
	if err := p.Delete(bg, in); err != nil {
		t.Errorf("Delete after a cancelled Create: %v", err)
	}

	link, err := p.Link(bg, g.Link)
	if err != nil {
		t.Fatalf("Link: %v", err)
	}
	defer func() {
		if err := p.Delete(bg, link); err != nil {
			t.Errorf("Delete link: %v", err)
		}
	}()
	m = g.Server
	m.Link = link
	in, err = p.Create(bg, m)
	defer func() {
		if err := p.Delete(bg, in); err != nil {
			t.Errorf("Delete machine: %v", err)
		}
	}()
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if in.Endpoint == nil || in.Endpoint.Addr == "" || in.Endpoint.Iface == "" {
		t.Errorf("Create filled no endpoint address and interface: %+v", in.Endpoint)
	}
	tr, err := p.Connect(done, in)
	if err == nil {
		tr.Close()
		t.Fatalf("Connect with a cancelled context succeeded")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Connect with a cancelled context: %v, want an error wrapping context.Canceled", err)
	}
	tr, err = p.Connect(bg, in)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("transport Close: %v", err)
	}
}

// ForeignObject is the ownership case of the suite, which Conformance runs
// and a back end without the real thing to run the whole suite on runs
// alone against its fake: an object that is not lab's already bears the
// name lab would give one of the pair's resources (h.Foreign). The
// engine's apply must fail with a refusal matching providers.ErrNotOwned;
// its teardown, and `lab destroy` after it (orphans included), must never
// ask the provider to delete that resource, must leave no record of it in
// state, and must leave the object exactly as it was.
func ForeignObject(t *testing.T, h Harness) {
	t.Helper()
	foreignObject(t, h.withDefaults())
}

func foreignObject(t *testing.T, h Harness) {
	if h.Foreign == nil {
		t.Skipf("the %s back end makes no objects: nothing of lab's name can be another's", h.Type)
	}
	lab, p := h.load(t, "")
	st := newState()
	pl, diags := plan.New(lab, st, plan.Options{})
	if diags.HasErrors() {
		t.Fatalf("plan: %v", diags)
	}
	address, look := h.Foreign(t, pl.Groups[0])
	before := look()
	if before == "" {
		t.Fatalf("Foreign made nothing for %s", address)
	}
	var (
		mu      sync.Mutex
		deleted []string
	)
	view := engine.ViewFunc(func(ev engine.Event) {
		if ev.Type == engine.EvDelete {
			mu.Lock()
			deleted = append(deleted, ev.Address+" "+ev.Message)
			mu.Unlock()
		}
	})
	eng := &engine.Engine{State: st, Store: nopStore{}, Providers: map[string]providers.Provider{h.Type + ".conf": p},
		OS:      func(string) (guest.OS, error) { return standInOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return standInRunner{}, nil },
		Results: &memResults{}, RunID: "conformance", Lab: lab.Name, View: view}
	ctx, cancel := context.WithTimeout(context.Background(), h.Timeout)
	defer cancel()
	_, err := eng.Apply(ctx, ctx, pl)
	if !errors.Is(err, providers.ErrNotOwned) {
		t.Errorf("apply over a foreign %s: %v, want a refusal matching providers.ErrNotOwned", address, err)
	}
	if err := eng.Destroy(ctx, st.Owner(lab.Name), true); err != nil {
		t.Errorf("destroy after the refused apply: %v", err)
	}
	for _, d := range deleted {
		if strings.HasPrefix(d, address+" ") {
			t.Errorf("the engine asked the provider to delete the refused %s (%s)", address, d)
		}
	}
	for _, r := range st.Resources {
		t.Errorf("state after teardown and destroy still lists %s (%s, %s)", r.Address, r.Name, r.Status)
	}
	if after := look(); after != before {
		t.Errorf("the foreign object of %s's name changed:\nbefore: %s\nafter:  %s", address, before, after)
	}
}

// newState is an empty state of a new workspace.
func newState() *state.State {
	return &state.State{Version: state.Version, Lineage: state.NewLineage()}
}

// standInOS applies nothing and observes what was asked: the suite tests
// the provider, not the guest's drivers.
type standInOS struct{}

func (standInOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (standInOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	return guest.Observed{Interface: iface, MTU: s.MTU, Kernel: "conformance"}, nil
}

// standInRunner reports a fixed measurement without running anything.
type standInRunner struct{}

func (standInRunner) Run(ctx context.Context, _, _ bench.Endpoint, _ bench.Params) (bench.Raw, error) {
	return bench.Raw{Client: "{}"}, ctx.Err()
}
func (standInRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 1e9, Version: "conformance"}, nil
}

type nopStore struct{}

func (nopStore) Save(*state.State) error { return nil }

type memResults struct {
	mu   sync.Mutex
	recs []results.Record
}

func (m *memResults) Write(r results.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, r)
	return nil
}
