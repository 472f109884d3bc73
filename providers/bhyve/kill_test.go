package bhyve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// These tests inject the fault of issue 20, item 1 on the fake host: lab
// is killed (kill -9) right after the command that creates an object, so
// the command that would tag it never reaches the host, nothing lab
// would do afterwards reaches it either, and the state file stays as last
// written. A second lab then works from that state file.

// bhyveKill is where lab dies and what it leaves.
type bhyveKill struct {
	name    string
	backend string
	// after is the command (a regexp; NAME, SW stand for the server's VM
	// and the link's switch) after which lab dies.
	after   string
	halfway func(h *fakeHost, f []string)
	// record is the address whose pending record must find the object.
	record func(g *plan.Group) string
	// untagged reports what of lab's name exists without a tag (for the
	// windows only a pending record closes); nil for objects created with
	// their tag.
	untagged func(h *fakeHost, vm, sw string) []string
}

var bhyveKills = []bhyveKill{
	{
		name: "vm-bhyve: after vm switch create, before the bridge's description", backend: "vm-bhyve",
		after:  `^vm switch create -m 1500 SW$`,
		record: func(g *plan.Group) string { return g.Link.Address },
		untagged: func(h *fakeHost, _, sw string) []string {
			if br := h.ifaces["vm-"+sw]; h.switches[sw] != nil && br != nil && br.desc == "" {
				return []string{"switch " + sw}
			}
			return nil
		},
	},
	{
		name: "vm-bhyve: after vm clone, before zfs set lab:owner", backend: "vm-bhyve",
		after:  `^vm clone fbsd14-tmpl@NAME NAME$`,
		record: func(g *plan.Group) string { return g.Server.Address },
		untagged: func(h *fakeHost, vm, _ string) []string {
			if ds := h.datasets["zroot/vm/"+vm]; ds != nil && ds.owner == "" && h.vms[vm] != nil {
				return []string{"VM " + vm}
			}
			return nil
		},
	},
	{
		name: "vm-bhyve: inside vm clone, datasets cloned, .conf not yet renamed", backend: "vm-bhyve",
		after: `^vm clone fbsd14-tmpl@NAME NAME$`,
		// lib/vm-zfs zfs::clone: `zfs clone` of each dataset of the
		// template (no properties), then `mv OLD.conf NAME.conf`; core::list
		// shows only directories with a NAME.conf, so killed between the
		// two the clone is in no `vm list`.
		halfway: func(h *fakeHost, f []string) {
			src, _, _ := strings.Cut(f[2], "@")
			snap := strings.SplitN(f[2], "@", 2)[1]
			for _, ds := range []string{"", "/disk0"} {
				h.datasets["zroot/vm/"+f[3]+ds] = &fakeDS{origin: "zroot/vm/" + src + ds + "@" + snap}
			}
		},
		record: func(g *plan.Group) string { return g.Server.Address },
		untagged: func(h *fakeHost, vm, _ string) []string {
			if ds := h.datasets["zroot/vm/"+vm]; ds != nil && ds.owner == "" && h.vms[vm] == nil {
				return []string{"dataset zroot/vm/" + vm}
			}
			return nil
		},
	},
	{
		name: "vm-bhyve: after zfs snapshot -r -o of the template (created with its tag)", backend: "vm-bhyve",
		after:  `^zfs snapshot -r -o .* zroot/vm/fbsd14-tmpl@NAME$`,
		record: func(g *plan.Group) string { return g.Server.Address },
	},
	{
		name: "bhyve: after zfs snapshot -o of the zvol (created with its tag)", backend: "bhyve",
		after:  `^zfs snapshot -o .* zroot/vm/fbsd14-zvol@NAME$`,
		record: func(g *plan.Group) string { return g.Server.Address },
	},
	{
		name: "vm-bhyve VALE: after the owner record, before vm switch create", backend: "vm-bhyve+vale",
		after:  `^sysrc -f \S+ '?lab_owner_SW=`,
		record: func(g *plan.Group) string { return g.Link.Address },
	},
	{
		name: "vm-bhyve VALE: after vm switch create (its owner record written before)", backend: "vm-bhyve+vale",
		after:  `^vm switch create -t vale SW$`,
		record: func(g *plan.Group) string { return g.Link.Address },
	},
	{
		name: "bhyve: after ifconfig bridge create (created with its description)", backend: "bhyve",
		after:  `^ifconfig bridge create description `,
		record: func(g *plan.Group) string { return g.Link.Address },
	},
	{
		name: "bhyve: after ifconfig tap create (created with its description)", backend: "bhyve",
		after:  `^ifconfig tap create description '[^']*addr=pair\.cc\.server'`,
		record: func(g *plan.Group) string { return g.Server.Address },
	},
	{
		name: "bhyve: after zfs clone -o (created with its tag)", backend: "bhyve",
		after:  `^zfs clone -o .* zroot/vm/NAME$`,
		record: func(g *plan.Group) string { return g.Server.Address },
	},
}

// TestKillBetweenCreateAndTagBhyve kills lab at each point and runs, over
// the state the kill left, `lab destroy` and (separately) the next `lab
// apply`: each finds what the kill left through its pending record and
// leaves nothing of lab's on the host.
func TestKillBetweenCreateAndTagBhyve(t *testing.T) {
	for _, kp := range bhyveKills {
		for _, next := range []string{"destroy", "apply"} {
			t.Run(kp.name+"/then "+next, func(t *testing.T) {
				k := newBhyveKillLab(t, kp.backend)
				disk := k.applyUntilKilled(t, kp)
				if r, ok := disk.Find(kp.record(k.group)); !ok || !r.Pending {
					t.Fatalf("state after the kill: %+v; want a pending record of %s", disk.Resources, kp.record(k.group))
				}
				if kp.untagged != nil && len(k.untagged(kp)) == 0 {
					t.Fatalf("the kill left nothing untagged: the fault was not injected (host: %v)", k.h.left())
				}
				fresh := k.provider(t)
				switch next {
				case "destroy":
					if err := k.engine(fresh, disk).Destroy(context.Background(), k.owner, false); err != nil {
						t.Fatalf("destroy after the kill: %v", err)
					}
				case "apply":
					pl, diags := plan.New(k.lab, disk, plan.Options{})
					if diags.HasErrors() {
						t.Fatal(diags)
					}
					if _, err := k.engine(fresh, disk).Apply(context.Background(), context.Background(), pl); err != nil {
						t.Fatalf("apply after the kill: %v", err)
					}
				}
				if left := k.h.left(); len(left) != 0 || len(disk.Resources) != 0 {
					t.Errorf("left after %s: host %v, state %+v", next, left, disk.Resources)
				}
				if extra := k.newInterfaces(); len(extra) != 0 {
					t.Errorf("interfaces left after %s: %v", next, extra)
				}
			})
		}
	}
}

// TestUntaggedWithoutPendingRecordRefusedBhyve: the objects a kill leaves
// untagged, with a record that says they were created (a confirmed
// create never leaves them untagged), are refused and left alone.
func TestUntaggedWithoutPendingRecordRefusedBhyve(t *testing.T) {
	for _, kp := range bhyveKills {
		if kp.untagged == nil {
			continue
		}
		t.Run(kp.name, func(t *testing.T) {
			k := newBhyveKillLab(t, kp.backend)
			disk := k.applyUntilKilled(t, kp)
			before := k.untagged(kp)
			r, _ := disk.Find(kp.record(k.group))
			created := *r
			created.Pending, created.Status = false, state.Created
			st := &state.State{Version: state.Version, Lineage: disk.Lineage, LabID: disk.LabID}
			st.Put(created)
			err := k.engine(k.provider(t), st).Destroy(context.Background(), k.owner, true)
			if err == nil || !strings.Contains(err.Error(), "is not this lab's") {
				t.Errorf("destroy -orphans with a created record: %v, want a refusal", err)
			}
			if after := k.untagged(kp); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("untagged objects before %v, after %v: want them left alone", before, after)
			}
		})
	}
}

// bhyveKillLab is the engine test's lab on one fake host, in a workspace
// of its own.
type bhyveKillLab struct {
	h     *fakeHost
	srv   *sshtest.Server
	lab   *spec.Lab
	st    *state.State
	group *plan.Group
	owner machine.Owner
}

func newBhyveKillLab(t *testing.T, backend string) *bhyveKillLab {
	t.Helper()
	h := newFakeHost()
	srv := newServer(t, h)
	source := map[string]string{"vm-bhyve": "fbsd14-tmpl", "vm-bhyve+vale": "fbsd14-tmpl", "bhyve": "fbsd14-zvol"}[backend]
	dir := t.TempDir()
	src := fmt.Sprintf(engineLab, srv.Host(), srv.Port(), srv.HostKey(), strings.TrimSuffix(backend, "+vale"), source)
	if strings.HasSuffix(backend, "+vale") { // vm-bhyve's VALE switches
		src = strings.Replace(src, "  backend  =", "  network_backend = \"vale\"\n  backend  =", 1)
	}
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
	return &bhyveKillLab{h: h, srv: srv, lab: lab, st: st, group: pl.Groups[0], owner: st.Owner(lab.Name)}
}

// newInterfaces lists the host's interfaces that it did not start with
// (bridges and taps get kernel-chosen names: nothing but this finds one
// that lost its description).
func (k *bhyveKillLab) newInterfaces() []string {
	initial := newFakeHost().ifaces
	k.h.mu.Lock()
	defer k.h.mu.Unlock()
	var out []string
	for _, n := range sortedSet(k.h.ifaces) {
		if initial[n] == nil {
			out = append(out, n)
		}
	}
	return out
}

// names are the server's VM and the link's vm-bhyve switch.
func (k *bhyveKillLab) names() (vm, sw string) {
	return vmName(k.group.Server.Name), switchName("lab-" + k.group.Link.Name)
}

func (k *bhyveKillLab) untagged(kp bhyveKill) []string {
	vm, sw := k.names()
	k.h.mu.Lock()
	defer k.h.mu.Unlock()
	return kp.untagged(k.h, vm, sw)
}

// provider is a provider of the lab's bhyve block that reaches the fake
// host; guests are stood in.
func (k *bhyveKillLab) provider(t *testing.T) *Provider {
	t.Helper()
	p := New()
	if d := p.Configure(context.Background(), k.lab.Providers["bhyve.box"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	p.signer, p.poll = k.srv.ClientSigner(), 0
	p.dial = func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
		return nopTransport{name}, nil
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func (k *bhyveKillLab) engine(p *Provider, st *state.State) *engine.Engine {
	return &engine.Engine{State: st, Store: memStore{}, Providers: map[string]providers.Provider{"bhyve.box": p},
		OS:      func(string) (guest.OS, error) { return okOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return okRunner{}, nil },
		Results: &memResults{}, RunID: "kill", Lab: k.lab.Name,
		Parallelism: 1, // the kill point is reached with nothing else half-way
	}
}

// applyUntilKilled applies the lab with the host set to kill it at kp and
// returns the state as last saved before the kill; then the host takes
// commands again.
func (k *bhyveKillLab) applyUntilKilled(t *testing.T, kp bhyveKill) *state.State {
	t.Helper()
	vm, sw := k.names()
	expr := strings.NewReplacer("NAME", regexp.QuoteMeta(vm), "SW", sw).Replace(kp.after)
	k.h.killAfter(expr, kp.halfway)
	var disk []byte
	e := k.engine(k.provider(t), k.st)
	e.Store = saverFunc(func(s *state.State) error {
		if k.h.killed() {
			return errors.New("lab was killed")
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
	if !k.h.killed() {
		t.Fatalf("the fault was not injected: no command matched %s", expr)
	}
	k.h.revive()
	var st state.State
	if err := json.Unmarshal(disk, &st); err != nil {
		t.Fatal(err)
	}
	return &st
}

type saverFunc func(*state.State) error

func (f saverFunc) Save(s *state.State) error { return f(s) }
