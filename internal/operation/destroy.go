package operation

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// DestroyOptions are what destroy's engine needs from the CLI.
type DestroyOptions struct {
	View engine.View
	// OS maps a template's os to its driver.
	OS func(name string) (guest.OS, error)
	// Abandon are the borrowed machines let go without logging in
	// (-abandon; CheckAbandon checks them).
	Abandon map[string]bool
	// AbandonCommand is the command that lets a borrowed machine go.
	AbandonCommand func(addr string) string
}

// Destroy removes what the state lists and, with orphans, every object
// tagged as owner's that it does not list; ctx cancels the teardown.
func (w *Workspace) Destroy(ctx context.Context, owner machine.Owner, orphans bool, opt DestroyOptions) error {
	eng := &engine.Engine{State: w.State, Store: w.Store, Providers: w.Providers, OS: opt.OS, View: LoggedView(opt.View, w.op.Log), Abandon: opt.Abandon,
		AbandonCommand: opt.AbandonCommand}
	return eng.Destroy(ctx, owner, orphans)
}

// StateOnlyWorkspace is a workspace built from the state alone: the lab id
// it recorded, and each provider it names configured with an empty block.
// Providers that need their block (a vCenter URL) cannot be had this way:
// the error says to fix the spec.
func (o *Operation) StateOnlyWorkspace() (*Workspace, error) {
	store := o.StateStore()
	unlock, err := o.LockState(store, "", "destroy")
	if err != nil {
		return nil, err
	}
	st, err := store.Load()
	if err == nil && st.LabID != "" {
		// A copy's state lists the original's objects, spec or no spec.
		err = o.claim(st, st.LabID)
	}
	if err != nil {
		o.releaseLock(unlock)
		return nil, err
	}
	provs := map[string]providers.Provider{}
	var problems []string
	for _, r := range st.Resources {
		if _, ok := provs[r.ProviderKey]; ok {
			continue
		}
		typ, _, _ := strings.Cut(r.ProviderKey, ".")
		p, err := providers.New(typ)
		if err == nil {
			if d := p.Configure(context.Background(), hcl.EmptyBody()); d.HasErrors() {
				err = d
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", r.ProviderKey, err))
			continue
		}
		provs[r.ProviderKey] = p
	}
	if len(problems) > 0 {
		o.releaseLock(unlock)
		return nil, fmt.Errorf("cannot destroy without the spec: %s; fix the spec so its provider blocks load", strings.Join(problems, "; "))
	}
	if st.LabID == "" && len(st.Resources) > 0 {
		o.releaseLock(unlock)
		return nil, fmt.Errorf("the state does not record its lab (written by an older lab): fix the spec to destroy")
	}
	return &Workspace{Providers: provs, Store: store, State: st, op: o, unlock: unlock}, nil
}

// CheckAbandon refuses a -abandon address that is not a borrowed machine
// in the state: only a machine lab does not own can be let go without
// lab logging in (a machine lab created is deleted through its back end).
func CheckAbandon(st *state.State, provs map[string]providers.Provider, abandon map[string]bool) error {
	for _, addr := range slices.Sorted(maps.Keys(abandon)) {
		r, ok := st.Find(addr)
		if !ok {
			return fmt.Errorf("-abandon %s: the state lists no such object (lab state list shows what it lists)", addr)
		}
		p := provs[r.ProviderKey]
		if r.Kind != "machine" || p == nil || !p.Capabilities().Borrowed {
			return fmt.Errorf("-abandon %s: not a borrowed machine (a hosts machine); lab destroy deletes what lab created", addr)
		}
	}
	return nil
}

// StateObjects is how many objects the lab directory's state lists (0 when
// it cannot be read: the refusal does not depend on it).
func (o *Operation) StateObjects() int {
	st, err := state.Store{Dir: o.StateDir()}.Load()
	if err != nil {
		return 0
	}
	return len(st.Resources)
}

// OtherWorkspaces counts, by workspace id, the objects of owner's lab that
// the back ends list in workspaces other than owner's (a back end that
// cannot list is left out).
func OtherWorkspaces(ctx context.Context, provs map[string]providers.Provider, owner machine.Owner) map[string]int {
	count := map[string]int{}
	for _, p := range provs {
		found, err := p.List(ctx, machine.Owner{Lab: owner.Lab, Workspace: machine.AnyWorkspace})
		if err != nil {
			continue
		}
		for _, in := range found {
			if in.Owner.Lab == owner.Lab && in.Owner.Workspace != "" && in.Owner.Workspace != owner.Workspace {
				count[in.Owner.Workspace]++
			}
		}
	}
	return count
}

// ValidWorkspaceID reports whether s can be a workspace id: letters and
// digits only (lab makes them from a state's lineage, see
// state.Workspace), so never a pattern and never anything a shell would
// read differently from what is printed.
func ValidWorkspaceID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// DestroyCommand is the `lab destroy` command line lab suggests: this
// invocation's lab directory (-chdir), -var-file and -var options, and
// extra. Every word is shell-quoted; a sensitive variable given with -var
// is left out (lab never prints its value: give it as LAB_VAR_<name>).
func (o *Operation) DestroyCommand(v Vars, lab *spec.Lab, extra ...string) string {
	argv := []string{"lab"}
	if o.Dir != "." {
		argv = append(argv, "-chdir="+o.Dir)
	}
	argv = append(argv, "destroy")
	for _, f := range v.Files {
		argv = append(argv, "-var-file="+f)
	}
	for _, kv := range v.Vars {
		if name, _, _ := strings.Cut(kv, "="); lab != nil && lab.Sensitive[strings.TrimSpace(name)] {
			continue
		}
		argv = append(argv, "-var="+kv)
	}
	return guest.ShellJoin(append(argv, extra...))
}
