package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// live is a group's machines once they exist.
type live struct {
	group      *plan.Group
	link       machine.Instance
	clientLink machine.Instance // routed pairs only
	server     machine.Instance
	client     machine.Instance
	router     *machine.Instance // routed pairs only
}

// provision makes a group's link and machines exist in the planned shape:
// kept ones are reused, replaced ones deleted first, missing ones created.
func (e *Engine) provision(ctx context.Context, g *plan.Group, actions map[string]plan.Action) (*live, error) {
	l := &live{group: g}
	link := func(spec providers.LinkSpec) (machine.Instance, error) {
		prov, err := e.providerFor(g, spec.Address)
		if err != nil {
			return machine.Instance{}, err
		}
		return e.ensure(ctx, prov, g, actions[spec.Address], "link", func(ctx context.Context) (machine.Instance, error) {
			return prov.Link(ctx, spec)
		})
	}
	var err error
	if l.link, err = link(g.Link); err != nil {
		return l, err
	}
	machines := []*machine.Machine{&g.Server, &g.Client}
	// The client's link: the router's second in a routed pair, the
	// client provider's side of the existing network in a cross pair.
	clientLink := l.link
	if g.ClientLink != nil {
		if l.clientLink, err = link(*g.ClientLink); err != nil {
			return l, err
		}
		clientLink = l.clientLink
	}
	if g.Router != nil {
		machines = append(machines, g.Router)
	}
	provs := make([]providers.Provider, len(machines))
	for i, m := range machines {
		if provs[i], err = e.providerFor(g, m.Address); err != nil {
			return l, err
		}
	}
	eg, ectx := errgroup.WithContext(ctx)
	for i, m := range machines {
		m, prov := *m, provs[i]
		// A routed pair's ends get the peer's link as Link2: a VM back end
		// routes exactly its subnet via the router.
		switch m.Role {
		case "client":
			m.Link = clientLink
			if g.Router != nil {
				m.Link2 = l.link
			}
		case "router":
			m.Link, m.Link2 = l.link, clientLink
		default:
			m.Link = l.link
			if g.Router != nil {
				m.Link2 = clientLink
			}
		}
		eg.Go(func() error {
			in, err := e.ensure(ectx, prov, g, actions[m.Address], "machine", func(ctx context.Context) (machine.Instance, error) {
				return prov.Create(ctx, m)
			})
			switch m.Role {
			case "server":
				l.server = in
			case "client":
				l.client = in
			case "router":
				l.router = &in
			}
			return err
		})
	}
	return l, eg.Wait()
}

// providerFor is the provider that makes g's resource at address (the
// client's provider for a cross pair's client side).
func (e *Engine) providerFor(g *plan.Group, address string) (providers.Provider, error) {
	return e.provider(g.ProviderKeyFor(address))
}

// ensure makes one resource exist. A create is written to state as pending
// (with the name it will have) before it starts, so a crash or kill at any
// moment leaves something `lab destroy` can find.
func (e *Engine) ensure(ctx context.Context, prov providers.Provider, g *plan.Group, a plan.Action, kind string,
	create func(context.Context) (machine.Instance, error)) (machine.Instance, error) {
	if a.Op == plan.OpKeep && a.Old != nil {
		if in, ok, err := prov.Read(ctx, a.Old.Instance); err == nil && ok {
			e.emit(Event{Type: EvReuse, Address: a.Address, Message: in.Name})
			return in, nil
		}
		// Gone since the plan was made: create it again.
	}
	if a.Old != nil && a.Op != plan.OpCreate {
		// By the provider that made it, which a spec that moved the
		// machine to another provider no longer names for it.
		old, err := e.provider(a.Old.ProviderKey)
		if err != nil {
			return machine.Instance{}, err
		}
		if err := e.deleteResource(ctx, old, *a.Old); err != nil {
			return machine.Instance{}, err
		}
	}
	pending := pendingInstance(g, a.Address, kind)
	res := state.Resource{Instance: pending, ProviderKey: g.ProviderKeyFor(a.Address), Status: state.Pending, Shape: g.Shape}
	if err := e.put(res); err != nil {
		return machine.Instance{}, err
	}
	start := e.clock()
	release, err := e.slot(ctx)
	if err != nil {
		release()
		return machine.Instance{}, err
	}
	e.emit(Event{Type: EvCreate, Address: a.Address, Message: pending.Name})
	in, err := create(ctx)
	release()
	if errors.Is(err, providers.ErrNotOwned) {
		// An object of this name that is not the lab's: it is not lab's to
		// delete, so state must not list it (a tainted entry would make
		// every later destroy try, be refused and fail).
		if rerr := e.remove(a.Address); rerr != nil {
			return machine.Instance{}, fmt.Errorf("%w (and: %v)", err, rerr)
		}
		return machine.Instance{}, err
	}
	if err != nil {
		// Keep what the provider reported (it may name a half-made object)
		// but leave it tainted so teardown and destroy remove it.
		if in.Address != "" {
			res.Instance = mergeInstance(pending, in)
		}
		// The create stopped somewhere between "made" and "tagged": Delete
		// may adopt an untagged object of exactly this name.
		res.Instance.Pending = true
		res.Status = state.Tainted
		if perr := e.put(res); perr != nil {
			return machine.Instance{}, fmt.Errorf("%w (and: %v)", err, perr)
		}
		return machine.Instance{}, err
	}
	res.Instance = mergeInstance(pending, in)
	res.Instance.Pending = false
	res.Status = state.Created
	if err := e.put(res); err != nil {
		return in, err
	}
	e.emit(Event{Type: EvCreated, Address: a.Address, Message: in.Name, Elapsed: e.clock().Sub(start)})
	return res.Instance, nil
}

// pendingInstance is what state records before a create: enough for the
// provider's Delete to find the object by name if the create got anywhere.
func pendingInstance(g *plan.Group, address, kind string) machine.Instance {
	name := g.Link.Name
	switch {
	case address == g.Server.Address:
		name = g.Server.Name
	case address == g.Client.Address:
		name = g.Client.Name
	case g.Router != nil && address == g.Router.Address:
		name = g.Router.Name
	case g.ClientLink != nil && address == g.ClientLink.Address:
		name = g.ClientLink.Name
	}
	return machine.Instance{Address: address, Provider: g.ProviderTypeFor(address), Kind: kind, Name: name, Owner: g.Link.Owner(), Pending: true}
}

func mergeInstance(pending, in machine.Instance) machine.Instance {
	out := in
	if out.Address == "" {
		out.Address = pending.Address
	}
	if out.Kind == "" {
		out.Kind = pending.Kind
	}
	if out.Name == "" {
		out.Name = pending.Name
	}
	out.Owner = pending.Owner // the engine's record of whose it is, whatever the provider said
	attrs := map[string]string{}
	for k, v := range pending.Attrs {
		attrs[k] = v
	}
	for k, v := range in.Attrs {
		attrs[k] = v
	}
	out.Attrs = attrs
	return out
}

// deleteResource deletes one resource and drops it from state; when the
// delete fails the resource stays in state as tainted.
func (e *Engine) deleteResource(ctx context.Context, prov providers.Provider, r state.Resource) error {
	release, err := e.slot(ctx)
	defer release()
	if err != nil {
		return fmt.Errorf("delete %s: %w", r.Address, err)
	}
	start := e.clock()
	e.emit(Event{Type: EvDelete, Address: r.Address, Message: r.Name})
	in := r.Instance
	// A pending record of a lab that predates Instance.Pending says the
	// same by its status alone.
	in.Pending = in.Pending || r.Status == state.Pending
	if err := prov.Delete(ctx, in); err != nil {
		if errors.Is(err, providers.ErrNotOwned) {
			// What bears this name is not the lab's (a state written before
			// refusals stayed out of it): say so once, and stop listing it.
			_ = e.remove(r.Address)
			return fmt.Errorf("delete %s: %w (dropped from state)", r.Address, err)
		}
		r.Status = state.Tainted
		_ = e.put(r)
		return fmt.Errorf("delete %s: %w", r.Address, err)
	}
	if err := e.remove(r.Address); err != nil {
		return err
	}
	e.emit(Event{Type: EvDeleted, Address: r.Address, Message: r.Name, Elapsed: time.Since(start)})
	return nil
}
