package engine

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// errKilled is what a killed lab's provider answers: nothing reaches the
// back end any more.
var errKilled = errors.New("lab was killed")

// dyingProvider is the provider of a lab that is killed (kill -9) the
// moment its Create of killAt has made the object: from then on no call
// reaches the back end (the shared fake world) and no state write reaches
// the disk.
type dyingProvider struct {
	*fakeProvider
	killAt string
	mu     sync.Mutex
	dead   bool
}

func (d *dyingProvider) isDead() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dead
}

func (d *dyingProvider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	if d.isDead() {
		return machine.Instance{}, errKilled
	}
	in, err := d.fakeProvider.Create(ctx, m)
	if m.Address == d.killAt {
		d.mu.Lock()
		d.dead = true // made, never tagged, never reported
		d.mu.Unlock()
		return machine.Instance{}, errKilled
	}
	return in, err
}

func (d *dyingProvider) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	if d.isDead() {
		return machine.Instance{}, errKilled
	}
	return d.fakeProvider.Link(ctx, l)
}

func (d *dyingProvider) Delete(ctx context.Context, in machine.Instance) error {
	if d.isDead() {
		return errKilled
	}
	return d.fakeProvider.Delete(ctx, in)
}

// pendingSeen notes the Pending flag of every instance Delete is given.
type pendingSeen struct {
	*fakeProvider
	mu   sync.Mutex // teardown deletes machines at once
	seen map[string]bool
}

func (p *pendingSeen) Delete(ctx context.Context, in machine.Instance) error {
	p.mu.Lock()
	p.seen[in.Address] = in.Pending
	p.mu.Unlock()
	return p.fakeProvider.Delete(ctx, in)
}

// TestKilledCreateLeavesPendingForDestroy kills lab between a machine's
// create and its tag (the provider made the object and nothing after that
// ran: no state write, no teardown) and runs `lab destroy` over the state
// file as the kill left it: the record is there, marked Pending, and the
// provider's Delete is told so — which is what lets a back end adopt the
// untagged object of exactly that name (docs/PROVIDERS.md).
func TestKilledCreateLeavesPendingForDestroy(t *testing.T) {
	world := newFake()
	killed := &dyingProvider{fakeProvider: world, killAt: "pair.p.server"}
	e, _, _ := newEngine(world, fakeOS{}, fakeRunner{})
	e.Providers["fake.x"] = killed
	var disk []byte // the state file as last written
	e.Store = saverFunc(func(s *state.State) error {
		if killed.isDead() {
			return errKilled
		}
		b, err := json.Marshal(s)
		disk = b
		return err
	})
	_, _ = e.Apply(context.Background(), context.Background(), testPlan(1, 1500))
	if !world.exists["pair.p.server"] {
		t.Fatal("the fault was not injected: the server was never made")
	}

	var st state.State
	if err := json.Unmarshal(disk, &st); err != nil {
		t.Fatal(err)
	}
	r, ok := st.Find("pair.p.server")
	if !ok || r.Status != state.Pending || !r.Pending {
		t.Fatalf("state on disk after the kill: %+v, want the server pending", st.Resources)
	}
	fresh := &pendingSeen{fakeProvider: world, seen: map[string]bool{}}
	e2, _, _ := newEngine(world, fakeOS{}, fakeRunner{})
	e2.Providers["fake.x"], e2.State = fresh, &st
	if err := e2.Destroy(context.Background(), machine.Owner{Lab: "t"}, false); err != nil {
		t.Fatal(err)
	}
	if pending, asked := fresh.seen["pair.p.server"]; !asked || !pending {
		t.Errorf("destroy's Delete of the server: asked %v, Pending %v; want asked with Pending", asked, pending)
	}
	if pending := fresh.seen["pair.p.link"]; pending {
		t.Error("the link was created and reported: its Delete must not say Pending")
	}
	if len(world.exists) != 0 || len(st.Resources) != 0 {
		t.Errorf("left after destroy: %v / %+v", world.exists, st.Resources)
	}
}

// TestPendingFlagOnDelete: which records Delete sees as Pending — those
// whose create never reported success, including a pending record written
// by a lab that predates the flag (status alone), and no other.
func TestPendingFlagOnDelete(t *testing.T) {
	in := machine.Instance{Address: "pair.p.server", Kind: "machine", Name: "t-p-s", Owner: machine.Owner{Lab: "t"}}
	flagged := in
	flagged.Pending = true
	tests := []struct {
		name   string
		res    state.Resource
		wantOK bool
	}{
		{"pending", state.Resource{Instance: flagged, Status: state.Pending}, true},
		{"pending, written before the flag existed", state.Resource{Instance: in, Status: state.Pending}, true},
		{"tainted by a failed create", state.Resource{Instance: flagged, Status: state.Tainted}, true},
		{"tainted by a failed delete", state.Resource{Instance: in, Status: state.Tainted}, false},
		{"created", state.Resource{Instance: in, Status: state.Created}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			world := newFake()
			p := &pendingSeen{fakeProvider: world, seen: map[string]bool{}}
			e, _, _ := newEngine(world, fakeOS{}, fakeRunner{})
			e.Providers["fake.x"] = p
			tc.res.ProviderKey = "fake.x"
			e.State.Put(tc.res)
			if err := e.Destroy(context.Background(), machine.Owner{Lab: "t"}, false); err != nil {
				t.Fatal(err)
			}
			if got := p.seen[in.Address]; got != tc.wantOK {
				t.Errorf("Delete saw Pending %v, want %v", got, tc.wantOK)
			}
		})
	}
}

// TestFailedCreateStaysPending: a create that fails half-way leaves a
// tainted record that still says Pending; a create that succeeds clears it.
func TestFailedCreateStaysPending(t *testing.T) {
	prov := newFake()
	prov.fail["create:pair.p.server"] = errors.New("half-made")
	e, _, _ := newEngine(prov, fakeOS{}, fakeRunner{})
	e.Keep = true
	_, _ = e.Apply(context.Background(), context.Background(), testPlan(1, 1500))
	// The failed create cancels the others: a machine whose create had
	// not reported success by then stays Pending too (timing decides
	// which), a created one never is.
	for _, r := range e.State.Resources {
		want := r.Address == "pair.p.server" || r.Status != state.Created
		if r.Pending != want {
			t.Errorf("%s (%s): Pending %v, want %v", r.Address, r.Status, r.Pending, want)
		}
	}
}
