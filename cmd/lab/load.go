package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/results"
	"github.com/lab-bench/lab/spec"
	"github.com/lab-bench/lab/state"
)

// varFlags are -var and -var-file, repeatable.
type varFlags struct {
	vars  []string
	files []string
}

func (v *varFlags) register(fs *flag.FlagSet) {
	fs.Func("var", "set a variable: `name=value` (repeatable)", func(s string) error { v.vars = append(v.vars, s); return nil })
	fs.Func("var-file", "read variables from `FILE` (repeatable; relative to the lab directory, -chdir's, as in Terraform)", v.addFile)
}

// addFile takes a -var-file path as given; see in.
func (v *varFlags) addFile(path string) error {
	v.files = append(v.files, path)
	return nil
}

// in returns v with every relative -var-file made absolute from the lab
// directory dir — as Terraform reads it after -chdir — so that a saved
// plan finds it from anywhere.
func (v varFlags) in(dir string) varFlags {
	out := varFlags{vars: v.vars}
	for _, f := range v.files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, f)
		}
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		out.files = append(out.files, f)
	}
	return out
}

// loadLab decodes the lab directory and prints diagnostics. Warnings are
// printed too; an error comes back as reported{1}.
func loadLab(g *globals, v varFlags) (*spec.Lab, error) {
	v = v.in(g.dir)
	lab, diags := spec.Load(g.dir, spec.Options{Vars: v.vars, VarFiles: v.files, Env: g.env, KnownProviders: providers.Names()})
	addSecrets(g, lab)
	if len(diags) > 0 {
		_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
	}
	if diags.HasErrors() {
		return nil, newSpecError(g, diags)
	}
	return lab, nil
}

// addSecrets makes the values of lab's sensitive variables redacted in
// everything lab writes from now on. It runs before the first diagnostic
// is printed: a spec that fails to load can still show a sensitive value
// in an error ("os must be … got \"<value>\"").
func addSecrets(g *globals, lab *spec.Lab) {
	if lab == nil {
		return
	}
	for label, v := range lab.SensitiveValues() {
		g.secrets.Add(label, v)
	}
}

// configureProviders makes and configures every provider the lab declares
// (the second phase of decoding: each provider reads its own block).
func configureProviders(ctx context.Context, g *globals, lab *spec.Lab) (map[string]providers.Provider, error) {
	out, diags := newProviders(ctx, g, lab)
	if len(diags) > 0 {
		_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
	}
	if diags.HasErrors() {
		return nil, newSpecError(g, diags)
	}
	return out, nil
}

// specError is a spec that did not load, or whose providers did not
// configure: its diagnostics are printed already (it is reported, exit 1);
// first is the first error as "file:line,column: summary: detail", for a
// message that must say what is needed.
type specError struct {
	reported
	first string
}

func (e specError) Unwrap() error { return e.reported }

func newSpecError(g *globals, diags hcl.Diagnostics) specError {
	e := specError{reported: reported{exitError}}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		e.first = d.Summary
		if d.Detail != "" {
			e.first += ": " + d.Detail
		}
		if r := d.Subject; r != nil {
			e.first = fmt.Sprintf("%s:%d,%d: %s", displayPath(g.dir, r.Filename), r.Start.Line, r.Start.Column, e.first)
		}
		break
	}
	return e
}

// newProviders makes and configures the lab's providers, returning what
// their Configure said.
func newProviders(ctx context.Context, g *globals, lab *spec.Lab) (map[string]providers.Provider, hcl.Diagnostics) {
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
		if g.log != nil {
			p = providers.Traced(key, p, g.log)
		}
		out[key] = p
	}
	return out, diags
}

// workspace is a loaded lab with configured providers and its state,
// locked for one operation.
type workspace struct {
	lab       *spec.Lab
	providers map[string]providers.Provider
	store     state.Store
	state     *state.State
	unlock    func() error
}

// openWorkspace loads the lab, configures its providers, takes the state
// lock for op ("apply", "destroy") and reads the state. The caller must
// call unlock.
func openWorkspace(g *globals, v varFlags, op string) (*workspace, error) {
	lab, err := loadLab(g, v)
	if err != nil {
		return nil, err
	}
	provs, err := configureProviders(sshContext(g), g, lab)
	if err != nil {
		return nil, err
	}
	store := stateStore(g)
	unlock, err := lockState(g, store, lab.Name, op)
	if err != nil {
		return nil, err
	}
	st, err := store.Load()
	if err == nil {
		err = claim(g, st, lab.Name)
	}
	if err != nil {
		releaseLock(g, unlock)
		return nil, err
	}
	return &workspace{lab: lab, providers: provs, store: store, state: st, unlock: unlock}, nil
}

// claim makes st this lab directory's state (state.Claim): a state copied
// from another lab directory with objects in it is refused, since those
// objects are the original's; one of this directory, moved, is taken.
func claim(g *globals, st *state.State, labID string) error {
	dir, err := filepath.Abs(g.dir)
	if err != nil {
		return err
	}
	return st.Claim(labID, dir, state.DirID(stateDir(g)))
}

func stateDir(g *globals) string { return filepath.Join(g.dir, ".lab") }

// stateStore is the lab's state store; sensitive values are sealed out of
// the file and put back when it is read (redact.Set.Seal).
func stateStore(g *globals) state.Store { return state.Store{Dir: stateDir(g), Secrets: g.secrets} }

// resultStore is the lab's results; sensitive values never reach a record.
func resultStore(g *globals) results.Store {
	return results.Store{Dir: resultsDir(g), Redact: g.secrets.Bytes}
}

// PinFileName is the workspace's known_hosts file in .lab/: the host keys
// of borrowed machines and jump hosts, pinned on first contact.
const PinFileName = "known_hosts"

// pinFile is the workspace's pin file, absolute when it can be, so that
// the ssh-keygen command a changed key's error prints works from anywhere.
func pinFile(g *globals) string {
	p := filepath.Join(stateDir(g), PinFileName)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// sshContext is the base context of a command that logs in to machines:
// it carries the workspace's pin file (labssh.WithPinFile).
func sshContext(g *globals) context.Context {
	return labssh.WithPinFile(context.Background(), pinFile(g))
}
func resultsDir(g *globals) string { return filepath.Join(g.dir, "results") }

// isTerminal reports whether w is a terminal (through a redacting
// writer too: it keeps the file's Fd).
func isTerminal(w any) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

func termWidth() uint {
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 20 {
		return uint(w)
	}
	return 100
}

// newFlags makes a verb's flag set writing usage to stderr.
func newFlags(g *globals, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(g.stderr)
	fs.BoolVar(&g.noColor, "no-color", g.noColor, "print no ANSI colours (as NO_COLOR=1 does)")
	fs.Usage = func() {
		fmt.Fprintf(g.stderr, "Usage: lab %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// release gives the state lock back.
func (w *workspace) release(g *globals) { releaseLock(g, w.unlock) }

// releaseLock gives a state lock back; a failure is a warning, since the
// command's own work is done (the lock file names the holder for whoever
// finds it stale).
func releaseLock(g *globals, unlock func() error) {
	if err := unlock(); err != nil {
		fmt.Fprintf(g.stderr, "Warning: release the state lock: %v\n", err)
	}
}
