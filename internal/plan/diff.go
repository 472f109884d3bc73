package plan

import (
	"time"

	"github.com/lab-bench/lab/internal/state"
)

// diff compares the groups' machines and links with the state and records
// the actions: create what is missing, keep what exists in the right shape,
// replace what exists in another shape (or was left pending or tainted by a
// crash), delete what the spec no longer has.
func (p *Plan) diff(st *state.State) {
	want := map[string]bool{}
	for _, g := range p.Groups {
		items := []struct{ addr, kind string }{{g.Link.Address, "link"}}
		if g.ClientLink != nil {
			items = append(items, struct{ addr, kind string }{g.ClientLink.Address, "link"})
		}
		items = append(items, struct{ addr, kind string }{g.Server.Address, "machine"}, struct{ addr, kind string }{g.Client.Address, "machine"})
		if g.Router != nil {
			items = append(items, struct{ addr, kind string }{g.Router.Address, "machine"})
		}
		for _, item := range items {
			want[item.addr] = true
			a := Action{Address: item.addr, Kind: item.kind, Group: g.Address, Op: OpCreate}
			if old, ok := st.Find(item.addr); ok {
				o := *old
				a.Old = &o
				switch {
				case old.Status != state.Created:
					a.Op, a.Reason = OpReplace, "left "+old.Status+" by an earlier run"
				case old.Shape != g.Shape:
					a.Op, a.Reason = OpReplace, "hardware shape changed"
				case old.ProviderKey != "" && old.ProviderKey != g.ProviderKeyFor(item.addr):
					a.Op, a.Reason = OpReplace, "made by provider "+g.ProviderKeyFor(item.addr)+" now, not "+old.ProviderKey
				default:
					a.Op = OpKeep
				}
			}
			p.Actions = append(p.Actions, a)
		}
	}
	// Deletes go first, newest first, so machines go before their links.
	var deletes []Action
	for i := len(st.Resources) - 1; i >= 0; i-- {
		r := st.Resources[i]
		if !want[r.Address] && !p.untouched[r.Address] {
			o := r
			deletes = append(deletes, Action{Op: OpDelete, Address: r.Address, Kind: r.Kind, Old: &o, Reason: "not in the spec"})
		}
	}
	p.Actions = append(deletes, p.Actions...)
}

// Counts returns how many actions of each operation the plan has.
func (p *Plan) Counts() (add, replace, del, keep int) {
	for _, a := range p.Actions {
		switch a.Op {
		case OpCreate:
			add++
		case OpReplace:
			replace++
		case OpDelete:
			del++
		case OpKeep:
			keep++
		}
	}
	return
}

func (p *Plan) estimate(opt Options) {
	var d time.Duration
	add, replace, del, _ := p.Counts()
	d += time.Duration(add+2*replace+del) * opt.CreateCost / 2 // links are cheap: count machines and links at half
	d += runsTime(p.Runs(), opt.RunOverhead)
	p.Estimate = d
}
