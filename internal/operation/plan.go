package operation

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

// HasChanges reports whether applying p would do anything: an action on a
// machine or link other than keeping it, or a run.
func HasChanges(p *plan.Plan) bool {
	add, replace, del, _ := p.Counts()
	return add+replace+del > 0 || len(p.Runs()) > 0
}

// ReadState loads the state under a short-lived lock, so a plan never reads
// a state that an apply is writing. A state never saved (a fresh lab
// directory) is saved empty, fixing the workspace id the plan's names
// carry for the apply that follows.
func (o *Operation) ReadState(labID string) (*state.State, error) {
	store := o.StateStore()
	unlock, err := o.LockState(store, labID, "plan")
	if err != nil {
		return nil, err
	}
	defer o.releaseLock(unlock)
	st, err := store.Load()
	if err != nil {
		return nil, err
	}
	lineage := st.Lineage
	if err := o.claim(st, labID); err != nil {
		return nil, err
	}
	if st.Serial == 0 || st.Lineage != lineage {
		// The plan names what it would create after the workspace id (the
		// lineage), which a state never saved, or one Claim started over,
		// has just drawn at random. Saved now, under the lock, it is the
		// id the next apply reads, so the names plan shows are the names
		// apply uses. The id cannot be derived from the directory instead:
		// a copy, or a .lab/ removed and made again, must not take over
		// another workspace's objects.
		if err := store.Save(st); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// runOverhead is the per-run overhead measured on the lab's latest run
// (results.MeasuredOverhead), for a lab with a budget to size its blocks
// by; 0 (the plan's default of 1 s) without a budget or a run to measure.
func (o *Operation) runOverhead(lab *spec.Lab) time.Duration {
	if !slices.ContainsFunc(lab.Experiments, func(e *spec.Experiment) bool { return e.Budget > 0 }) {
		return 0
	}
	rs := o.ResultStore()
	id, err := rs.Latest()
	if err != nil {
		return 0
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		return 0
	}
	return results.MeasuredOverhead(recs)
}

// MakePlan plans the lab against its state and refuses, at the spec lines
// that ask, what a back end cannot do — before anything is created.
func (o *Operation) MakePlan(lab *spec.Lab, st *state.State, v Vars, provs map[string]providers.Provider, sel Selection) (*plan.Plan, error) {
	keep, desc := sel.options()
	v = v.In(o.Dir)
	p, diags := plan.New(lab, st, plan.Options{Vars: v.Vars, VarFiles: v.Files, Now: time.Now(), Select: keep, Selection: desc,
		OrderSeed: sel.orderSeed(), RunOverhead: o.runOverhead(lab)})
	if !diags.HasErrors() {
		// nft -c on this host, as validate does: a ruleset nft cannot
		// parse is refused before anything is created.
		diags = append(diags, lab.CheckRulesets(context.Background())...)
	}
	o.diagnose(lab, diags)
	if diags.HasErrors() {
		return nil, ErrReported
	}
	if err := sel.checkSelected(p); err != nil {
		return nil, err
	}
	if err := o.CheckCapabilities(lab, p, provs); err != nil {
		return nil, err
	}
	return p, nil
}

// SensitiveVars lists the sensitive variables that -var options set.
func SensitiveVars(lab *spec.Lab, vars []string) []string {
	var out []string
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if lab.Sensitive[strings.TrimSpace(name)] {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// RedactVars replaces the values of sensitive variables in -var options.
func RedactVars(lab *spec.Lab, vars []string) []string {
	out := slices.Clone(vars)
	for i, kv := range out {
		if name, _, _ := strings.Cut(kv, "="); lab.Sensitive[strings.TrimSpace(name)] {
			out[i] = name + "=(sensitive value)"
		}
	}
	return out
}
