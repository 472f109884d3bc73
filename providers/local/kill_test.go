package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// These tests inject the fault of issue 20, item 1: lab is killed (kill -9)
// between an object's create and its tag. The killed lab's provider runs
// real iproute2 commands until the kill point and none after it, and its
// state writes after the kill never reach "the disk" — exactly what
// survives a kill -9. A second lab then works from that state file.

var errKilled = errors.New("lab was killed")

// killPoint is where lab dies, in terms of the commands it runs.
type killPoint struct {
	name string
	// at reports whether argv is the create after which lab dies.
	at func(g *plan.Group, o machine.Owner, argv []string) bool
	// halfway, when set, runs instead of argv: what the command itself had
	// done when it was killed with lab.
	halfway func(argv []string) error
	// record is the address of the record the object belongs to.
	record func(g *plan.Group) string
	// left is what the kill leaves.
	left func(g *plan.Group, o machine.Owner) leftover
}

// leftover is what of lab's name a kill leaves.
type leftover struct {
	netns string // a namespace or a half-made namespace file
	// what the namespace is: "gone" (nothing of that name), "half-made"
	// (a file, no namespace) or "tagged" (a namespace with o's tag).
	netnsIs string
	veths   []string // veth ends, untagged
}

// untagged reports whether the kill left something of lab's name that
// carries no tag: what only a pending record can prove is lab's.
func (l leftover) untagged() bool { return l.netnsIs == "half-made" || len(l.veths) > 0 }

var killPoints = []killPoint{
	{
		name: "after the loopback's alias, before ip netns attach names the namespace",
		at: func(g *plan.Group, o machine.Owner, argv []string) bool {
			return strings.Join(argv, " ") == "ip link set dev lo alias "+o.Tag(g.Server.Address)
		},
		record: func(g *plan.Group) string { return g.Server.Address },
		// The unnamed namespace ends with the thread that made it.
		left: func(g *plan.Group, _ machine.Owner) leftover {
			return leftover{netns: Namespace(g.Server.Name), netnsIs: "gone"}
		},
	},
	{
		name: "inside ip netns attach: the file made, no namespace mounted on it",
		at: func(g *plan.Group, _ machine.Owner, argv []string) bool {
			return len(argv) == 5 && strings.Join(argv[:4], " ") == "ip netns attach "+Namespace(g.Server.Name)
		},
		// iproute2 ip/ipnetns.c, netns_add (which `ip netns attach`
		// runs too): create_netns_dir(), then open(netns_path,
		// O_RDONLY|O_CREAT|O_EXCL, 0), then the bind mount of the
		// namespace on it. Killed before the mount, it leaves this empty
		// file.
		halfway: func(argv []string) error {
			if err := os.MkdirAll(netnsDir, 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(filepath.Join(netnsDir, argv[3]), os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0)
			if err != nil {
				return err
			}
			return f.Close()
		},
		record: func(g *plan.Group) string { return g.Server.Address },
		left: func(g *plan.Group, _ machine.Owner) leftover {
			return leftover{netns: Namespace(g.Server.Name), netnsIs: "half-made"}
		},
	},
	{
		name: "after ip netns attach: named, and tagged already",
		at: func(g *plan.Group, _ machine.Owner, argv []string) bool {
			return len(argv) == 5 && strings.Join(argv[:4], " ") == "ip netns attach "+Namespace(g.Server.Name)
		},
		record: func(g *plan.Group) string { return g.Server.Address },
		left: func(g *plan.Group, _ machine.Owner) leftover {
			return leftover{netns: Namespace(g.Server.Name), netnsIs: "tagged"}
		},
	},
	{
		name: "after ip link add, before the veth's alias",
		at: func(g *plan.Group, o machine.Owner, argv []string) bool {
			s, _ := vethNames(o, g.Link.Address)
			return len(argv) > 4 && strings.Join(argv[:4], " ") == "ip link add "+s
		},
		record: func(g *plan.Group) string { return g.Link.Address },
		left: func(g *plan.Group, o machine.Owner) leftover {
			s, c := vethNames(o, g.Link.Address)
			return leftover{veths: []string{s, c}}
		},
	},
}

// TestKillBetweenCreateAndTag kills lab at each kill point and then runs,
// over the state the kill left, `lab destroy` and (separately) the next
// `lab apply`: both must find the untagged object through its pending
// record and remove it, without an error.
func TestKillBetweenCreateAndTag(t *testing.T) {
	needRoot(t)
	for i, kp := range killPoints {
		for _, next := range []string{"destroy", "apply"} {
			t.Run(kp.name+"/then "+next, func(t *testing.T) {
				k := newKillLab(t, fmt.Sprintf("k%d%d%d", os.Getpid()%10000, i, len(next)))
				disk := k.applyUntilKilled(t, kp)
				r, ok := disk.Find(kp.record(k.group))
				if !ok || !r.Pending {
					t.Fatalf("state after the kill: %+v; want a pending record of the object", disk.Resources)
				}
				left := kp.left(k.group, k.owner)
				k.mustBeLeft(t, left)
				fresh := New()
				switch next {
				case "destroy":
					e := k.engine(fresh, disk)
					if err := e.Destroy(context.Background(), k.owner, false); err != nil {
						t.Fatalf("destroy after the kill: %v", err)
					}
				case "apply":
					pl, diags := plan.New(k.lab, disk, plan.Options{})
					if diags.HasErrors() {
						t.Fatal(diags)
					}
					e := k.engine(fresh, disk)
					created := map[string]bool{}
					var mu sync.Mutex // events come from the create goroutines
					e.View = engine.ViewFunc(func(ev engine.Event) {
						if ev.Type == engine.EvCreated {
							mu.Lock()
							created[ev.Address] = true
							mu.Unlock()
						}
					})
					// The guests' tools are checked after the machines
					// exist: a host without iperf3 fails the apply there,
					// past what this test is about.
					var missing *engine.MissingToolsError
					_, err := e.Apply(context.Background(), context.Background(), pl)
					if err != nil && !errors.As(err, &missing) {
						t.Fatalf("apply after the kill: %v", err)
					}
					if addr := kp.record(k.group); !created[addr] {
						t.Errorf("apply after the kill did not create %s again (err %v)", addr, err)
					}
				}
				if len(disk.Resources) != 0 {
					t.Errorf("state after %s: %+v", next, disk.Resources)
				}
				k.mustBeGone(t, left)
			})
		}
	}
}

// TestUntaggedWithoutPendingRecordRefused: the same untagged objects, with
// no pending record of them — the state says created, or says nothing —
// are refused and left alone by destroy, destroy -orphans and apply.
func TestUntaggedWithoutPendingRecordRefused(t *testing.T) {
	needRoot(t)
	for i, kp := range killPoints {
		if !kp.left(&plan.Group{}, machine.Owner{}).untagged() {
			continue
		}
		t.Run(kp.name, func(t *testing.T) {
			k := newKillLab(t, fmt.Sprintf("u%d%d", os.Getpid()%10000, i))
			disk := k.applyUntilKilled(t, kp)
			left := kp.left(k.group, k.owner)
			k.mustBeLeft(t, left)

			// The record, confirmed as created by a lab that was not killed:
			// the untagged object of its name is not provably lab's.
			addr := kp.record(k.group)
			r, _ := disk.Find(addr)
			created := *r
			created.Pending, created.Status = false, state.Created
			st := &state.State{Version: state.Version, Lineage: disk.Lineage, LabID: disk.LabID}
			st.Put(created)
			err := k.engine(New(), st).Destroy(context.Background(), k.owner, true)
			if !errors.Is(err, providers.ErrNotOwned) {
				t.Errorf("destroy -orphans with a created record: %v, want a refusal", err)
			}
			k.mustBeLeft(t, left)

			// No record at all: apply refuses to replace it as a leftover.
			empty := &state.State{Version: state.Version, Lineage: disk.Lineage, LabID: disk.LabID}
			pl, diags := plan.New(k.lab, empty, plan.Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			_, err = k.engine(New(), empty).Apply(context.Background(), context.Background(), pl)
			if !errors.Is(err, providers.ErrNotOwned) || !strings.Contains(err.Error(), "not this lab's") {
				t.Errorf("apply over the untagged object: %v, want a refusal", err)
			}
			k.mustBeLeft(t, left)
		})
	}
}

// killLab is one lab in a temporary directory, with its plan's group.
type killLab struct {
	lab   *spec.Lab
	st    *state.State
	group *plan.Group
	owner machine.Owner
}

func newKillLab(t *testing.T, labID string) *killLab {
	t.Helper()
	dir := t.TempDir()
	src := fmt.Sprintf(`lab %q {}
provider "local" "x" {}
template "t" {
  provider = provider.local.x
  os       = "linux"
}
pair "p" {
  template = template.t
  vcpu     = 1
}
experiment "e" {
  pairs = [pair.p]
  iperf3 { duration = "1s" }
}
`, labID)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lab, diags := spec.Load(dir, spec.Options{KnownProviders: providers.Names()})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st := &state.State{Version: state.Version, Lineage: state.NewLineage(), LabID: lab.Name}
	pl, diags := plan.New(lab, st, plan.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	k := &killLab{lab: lab, st: st, group: pl.Groups[0], owner: st.Owner(lab.Name)}
	t.Cleanup(func() { k.removeAll() })
	return k
}

// removeAll removes, by their exact names, whatever the test left.
func (k *killLab) removeAll() {
	for _, m := range []machine.Machine{k.group.Server, k.group.Client} {
		_ = exec.Command("ip", "netns", "del", Namespace(m.Name)).Run()
	}
	s, c := vethNames(k.owner, k.group.Link.Address)
	for _, dev := range []string{s, c} {
		_ = exec.Command("ip", "link", "del", dev).Run()
	}
}

// applyUntilKilled applies the lab with a provider that dies at kp and
// returns the state as last saved before the kill.
func (k *killLab) applyUntilKilled(t *testing.T, kp killPoint) *state.State {
	t.Helper()
	var (
		mu   sync.Mutex
		dead bool
		disk []byte
	)
	p := New()
	p.exec = func(ctx context.Context, argv ...string) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if dead {
			return nil, errKilled
		}
		if !kp.at(k.group, k.owner, argv) {
			return hostExec(ctx, argv...)
		}
		dead = true
		if kp.halfway != nil {
			if err := kp.halfway(argv); err != nil {
				t.Errorf("inject the half-made %v: %v", argv, err)
			}
			return nil, errKilled
		}
		if out, err := hostExec(ctx, argv...); err != nil {
			t.Errorf("the create at the kill point failed: %v %s", err, out)
		}
		return nil, errKilled
	}
	e := k.engine(p, k.st)
	e.Store = saverFunc(func(s *state.State) error {
		mu.Lock()
		defer mu.Unlock()
		if dead {
			return errKilled
		}
		b, err := json.Marshal(s)
		disk = b
		return err
	})
	pl, diags := plan.New(k.lab, k.st, plan.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, _ = e.Apply(context.Background(), context.Background(), pl)
	if !dead {
		t.Fatal("the fault was not injected: lab never reached the kill point")
	}
	var st state.State
	if err := json.Unmarshal(disk, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// engine is a lab run with provider p over state st; guests are stood in.
func (k *killLab) engine(p *Provider, st *state.State) *engine.Engine {
	return &engine.Engine{State: st, Store: saverFunc(func(*state.State) error { return nil }),
		Providers:   map[string]providers.Provider{"local.x": p},
		OS:          func(string) (guest.OS, error) { return standInOS{}, nil },
		Runner:      func(string) (bench.Runner, error) { return standInRunner{}, nil },
		Results:     discardResults{},
		RunID:       "kill",
		Lab:         k.lab.Name,
		Parallelism: 1, // the kill point is reached with nothing else half-way
	}
}

// mustBeLeft checks that the kill left what kp says, untagged where it
// says so.
func (k *killLab) mustBeLeft(t *testing.T, left leftover) {
	t.Helper()
	p := New()
	if left.netns != "" {
		names, err := p.namespaces(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		switch exists := contains(names, left.netns); {
		case left.netnsIs == "gone" && exists:
			t.Fatalf("namespace %s exists after a kill before it was named", left.netns)
		case left.netnsIs == "gone":
		case !exists:
			t.Fatalf("namespace %s not there after the kill: the fault was not injected", left.netns)
		case halfMade(left.netns) != (left.netnsIs == "half-made"):
			t.Fatalf("namespace %s: half-made %v, want %s", left.netns, halfMade(left.netns), left.netnsIs)
		case left.netnsIs == "tagged":
			if tag, _, err := p.ifAlias(context.Background(), left.netns, "lo"); err != nil || !k.owner.Owns(tag) {
				t.Fatalf("namespace %s: tag %q (%v), want this workspace's", left.netns, tag, err)
			}
		}
	}
	for _, dev := range left.veths {
		if tag, ok, err := p.ifAlias(context.Background(), "", dev); err != nil || !ok || tag != "" {
			t.Fatalf("veth %s after the kill: exists %v, tag %q (%v); want it there untagged", dev, ok, tag, err)
		}
	}
}

// mustBeGone checks that nothing of the object is left.
func (k *killLab) mustBeGone(t *testing.T, left leftover) {
	t.Helper()
	p := New()
	if left.netns != "" {
		if _, err := os.Lstat(filepath.Join(netnsDir, left.netns)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("namespace %s still there: %v", left.netns, err)
		}
	}
	for _, dev := range left.veths {
		if _, ok, err := p.ifAlias(context.Background(), "", dev); ok || err != nil {
			t.Errorf("veth %s still there (%v)", dev, err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type saverFunc func(*state.State) error

func (f saverFunc) Save(s *state.State) error { return f(s) }

// standInOS applies nothing and observes what was asked: these tests are
// about the objects, not the guests' settings.
type standInOS struct{}

func (standInOS) Apply(context.Context, guest.Transport, string, guest.Settings) error { return nil }
func (standInOS) Observe(_ context.Context, _ guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	return guest.Observed{Interface: iface, MTU: s.MTU, Kernel: "kill-test"}, nil
}

// standInRunner reports a fixed measurement without running anything.
type standInRunner struct{}

func (standInRunner) Run(ctx context.Context, _, _ bench.Endpoint, _ bench.Params) (bench.Raw, error) {
	return bench.Raw{Client: "{}"}, ctx.Err()
}
func (standInRunner) Parse(bench.Raw) (bench.Sample, error) {
	return bench.Sample{ThroughputBps: 1e9, Version: "kill-test"}, nil
}

type discardResults struct{}

func (discardResults) Write(results.Record) error { return nil }
