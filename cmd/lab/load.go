package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/term"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/spec"
)

// op is the operation package's view of this invocation: the lab
// directory, the environment, where warnings go and how diagnostics are
// printed (g.stderr's width and colour).
func (g *globals) op() *operation.Operation {
	return &operation.Operation{Dir: g.dir, Env: g.env, Stderr: g.stderr, Log: g.log, Secrets: g.secrets,
		LockTimeout: g.lockTimeout, Version: Version(),
		Diagnostics: func(lab *spec.Lab, diags hcl.Diagnostics) {
			_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
		}}
}

// varFlags are -var and -var-file, repeatable.
type varFlags struct {
	vars  []string
	files []string
}

func (v *varFlags) register(fs *flag.FlagSet) {
	fs.Func("var", "set a variable: `name=value` (repeatable)", func(s string) error { v.vars = append(v.vars, s); return nil })
	fs.Func("var-file", "read variables from `FILE` (repeatable; relative to the lab directory, -chdir's, as in Terraform)", v.addFile)
}

// addFile takes a -var-file path as given; operation.Vars.In makes it
// absolute from the lab directory.
func (v *varFlags) addFile(path string) error {
	v.files = append(v.files, path)
	return nil
}

// opVars is v as the operation package takes it.
func (v varFlags) opVars() operation.Vars { return operation.Vars{Vars: v.vars, Files: v.files} }

// registerOnly adds -only to a verb that plans.
func registerOnly(fs *flag.FlagSet, o *operation.Only) {
	fs.Func("only", "run only the cells matching `key=value[,key=value…]` (matrix keys, pair, experiment; repeatable: any matches)", o.Add)
}

// registerOrderSeed adds -order-seed to a verb that plans.
func registerOrderSeed(fs *flag.FlagSet, seed *int64) {
	fs.Func("order-seed", "draw the random run order from seed `N` (≥ 1; plan shows the seed each plan drew, so N replays it)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a seed: a whole number ≥ 1", s)
		}
		*seed = n
		return nil
	})
}

// registerLockTimeout adds -lock-timeout to a verb that takes the state
// lock.
func registerLockTimeout(g *globals, fs *flag.FlagSet) {
	fs.DurationVar(&g.lockTimeout, "lock-timeout", 0, "wait up to `DURATION` (\"30s\", \"5m\") for the state lock when another command holds it (default: fail at once)")
}

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
