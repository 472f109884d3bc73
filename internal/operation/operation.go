// Package operation carries out lab's verbs on a lab directory: it opens
// the workspace (the spec, its configured providers and the state, locked),
// narrows a plan to the -only/-resume selection, holds an apply to the lock
// file, takes the host's benchmark lock, records provenance and builds the
// bundles publish writes. It is what package main calls once it has parsed
// the flags; main keeps the flags, the views and the exit codes, as
// Terraform's command package does over its backend/local.
//
// An Operation is filled by the CLI; its methods print nothing but
// warnings (to Stderr) and diagnostics (through Diagnostics), and
// Interrupts what it does on a signal: what a verb shows its user is the
// CLI's.
package operation

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/redact"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/internal/state"
)

// Operation is one invocation of lab on a lab directory: what every verb
// needs from the command line around it.
type Operation struct {
	// Dir is the lab directory (-chdir).
	Dir string
	// Env is the environment lab was given (os.Environ form); lab reads
	// it, never the process's, so tests can set it.
	Env []string
	// Stderr takes warnings and the messages of a wait for a lock.
	Stderr io.Writer
	// Log traces provider calls and guest commands (LAB_LOG); nil: off.
	Log *slog.Logger
	// Secrets are the sensitive values (filled when the spec is loaded)
	// that output, the log, records, plans and the state never show.
	Secrets *redact.Set
	// LockTimeout is -lock-timeout: how long to wait for the state lock.
	LockTimeout time.Duration
	// Version is lab's version, recorded in every run's provenance.
	Version string
	// Diagnostics prints diagnostics of lab's spec (the CLI's view:
	// terminal width, colour).
	Diagnostics func(lab *spec.Lab, diags hcl.Diagnostics)
}

// ErrReported is an error whose diagnostics were printed already, through
// Operation.Diagnostics: the CLI exits 1 without printing it again.
var ErrReported = errors.New("already reported")

// diagnose prints diags through o.Diagnostics, when there are any.
func (o *Operation) diagnose(lab *spec.Lab, diags hcl.Diagnostics) {
	if len(diags) > 0 && o.Diagnostics != nil {
		o.Diagnostics(lab, diags)
	}
}

// StateDir is the lab directory's .lab/, where the state lives.
func (o *Operation) StateDir() string { return filepath.Join(o.Dir, ".lab") }

// StateStore is the lab's state store; sensitive values are sealed out of
// the file and put back when it is read (redact.Set.Seal).
func (o *Operation) StateStore() state.Store {
	return state.Store{Dir: o.StateDir(), Secrets: o.Secrets}
}

// ResultsDir is the lab directory's results/.
func (o *Operation) ResultsDir() string { return filepath.Join(o.Dir, "results") }

// ResultStore is the lab's results; sensitive values never reach a record.
func (o *Operation) ResultStore() results.Store {
	return results.Store{Dir: o.ResultsDir(), Redact: o.Secrets.Bytes}
}

// PinFileName is the workspace's known_hosts file in .lab/: the host keys
// of borrowed machines and jump hosts, pinned on first contact.
const PinFileName = "known_hosts"

// PinFile is the workspace's pin file, absolute when it can be, so that
// the ssh-keygen command a changed key's error prints works from anywhere.
func (o *Operation) PinFile() string {
	p := filepath.Join(o.StateDir(), PinFileName)
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// SSHContext is the base context of a command that logs in to machines:
// it carries the workspace's pin file (labssh.WithPinFile).
func (o *Operation) SSHContext() context.Context {
	return labssh.WithPinFile(context.Background(), o.PinFile())
}

// EnvValue is key's value in env (os.Environ form), "" when unset.
func EnvValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// DisplayPath is path relative to dir when it is inside it, else path.
func DisplayPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
