package operation

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers"
)

// Vars are the -var and -var-file options, in the order given.
type Vars struct {
	Vars  []string
	Files []string
}

// In returns v with every relative -var-file made absolute from the lab
// directory dir — as Terraform reads it after -chdir — so that a saved
// plan finds it from anywhere.
func (v Vars) In(dir string) Vars {
	out := Vars{Vars: v.Vars}
	for _, f := range v.Files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		out.Files = append(out.Files, f)
	}
	return out
}

// LoadLab decodes the lab directory and prints diagnostics. Warnings are
// printed too; an error comes back as a SpecError.
func (o *Operation) LoadLab(v Vars) (*spec.Lab, error) {
	v = v.In(o.Dir)
	lab, diags := spec.Load(o.Dir, spec.Options{Vars: v.Vars, VarFiles: v.Files, Env: o.Env, KnownProviders: providers.Names(),
		SharesHostKernel: providers.SharesHostKernel})
	o.addSecrets(lab)
	o.diagnose(lab, diags)
	if diags.HasErrors() {
		return nil, o.newSpecError(diags)
	}
	return lab, nil
}

// addSecrets makes the values of lab's sensitive variables redacted in
// everything lab writes from now on. It runs before the first diagnostic
// is printed: a spec that fails to load can still show a sensitive value
// in an error ("os must be … got \"<value>\"").
func (o *Operation) addSecrets(lab *spec.Lab) {
	if lab == nil {
		return
	}
	for label, v := range lab.SensitiveValues() {
		o.Secrets.Add(label, v)
	}
}

// ConfigureProviders makes and configures every provider the lab declares
// (the second phase of decoding: each provider reads its own block).
func (o *Operation) ConfigureProviders(ctx context.Context, lab *spec.Lab) (map[string]providers.Provider, error) {
	out, diags := o.NewProviders(ctx, lab)
	o.diagnose(lab, diags)
	if diags.HasErrors() {
		return nil, o.newSpecError(diags)
	}
	return out, nil
}

// SpecError is a spec that did not load, or whose providers did not
// configure: its diagnostics are printed already (it is ErrReported, exit
// 1); First is the first error as "file:line,column: summary: detail",
// for a message that must say what is needed.
type SpecError struct {
	First string
}

// Error is ErrReported's message: the diagnostics say what is wrong.
func (e SpecError) Error() string { return ErrReported.Error() }

// Unwrap is ErrReported.
func (e SpecError) Unwrap() error { return ErrReported }

func (o *Operation) newSpecError(diags hcl.Diagnostics) SpecError {
	e := SpecError{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		e.First = d.Summary
		if d.Detail != "" {
			e.First += ": " + d.Detail
		}
		if r := d.Subject; r != nil {
			e.First = fmt.Sprintf("%s:%d,%d: %s", DisplayPath(o.Dir, r.Filename), r.Start.Line, r.Start.Column, e.First)
		}
		break
	}
	return e
}

// NewProviders makes and configures the lab's providers, returning what
// their Configure said.
func (o *Operation) NewProviders(ctx context.Context, lab *spec.Lab) (map[string]providers.Provider, hcl.Diagnostics) {
	out := map[string]providers.Provider{}
	var diags hcl.Diagnostics
	// Provider blocks may use var.* and functions (addresses, URLs).
	ctx = providers.WithEvalContext(ctx, lab.EvalContext())
	for key, pb := range lab.Providers {
		p, err := providers.New(pb.Type)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown provider type", Detail: err.Error(), Subject: pb.DeclRange.Ptr()})
			continue
		}
		done := spec.Watch(pb.DeclRange) // its expressions are evaluated by the provider
		diags = append(diags, p.Configure(ctx, pb.Body)...)
		done()
		if o.Log != nil {
			p = providers.Traced(key, p, o.Log)
		}
		out[key] = p
	}
	return out, diags
}

// Workspace is a loaded lab with configured providers and its state,
// locked for one operation.
type Workspace struct {
	// Lab is nil in a workspace made from the state alone
	// (StateOnlyWorkspace).
	Lab       *spec.Lab
	Providers map[string]providers.Provider
	Store     state.Store
	State     *state.State
	op        *Operation
	unlock    func() error
}

// Open loads the lab, configures its providers, takes the state lock for
// verb ("apply", "destroy") and reads the state. The caller must call
// Release (and CloseProviders).
func (o *Operation) Open(v Vars, verb string) (*Workspace, error) {
	lab, err := o.LoadLab(v)
	if err != nil {
		return nil, err
	}
	provs, err := o.ConfigureProviders(o.SSHContext(), lab)
	if err != nil {
		return nil, err
	}
	store := o.StateStore()
	unlock, err := o.LockState(store, lab.Name, verb)
	if err != nil {
		return nil, err
	}
	st, err := store.Load()
	if err == nil {
		err = o.claim(st, lab.Name)
	}
	if err != nil {
		o.releaseLock(unlock)
		return nil, err
	}
	return &Workspace{Lab: lab, Providers: provs, Store: store, State: st, op: o, unlock: unlock}, nil
}

// claim makes st this lab directory's state (state.Claim): a state copied
// from another lab directory with objects in it is refused, since those
// objects are the original's; one of this directory, moved, is taken.
func (o *Operation) claim(st *state.State, labID string) error {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return err
	}
	return st.Claim(labID, dir, state.DirID(o.StateDir()))
}

// Release gives the state lock back.
func (w *Workspace) Release() { w.op.releaseLock(w.unlock) }

// releaseLock gives a state lock back; a failure is a warning, since the
// command's own work is done (the lock file names the holder for whoever
// finds it stale).
func (o *Operation) releaseLock(unlock func() error) {
	if err := unlock(); err != nil {
		fmt.Fprintf(o.Stderr, "Warning: release the state lock: %v\n", err)
	}
}
