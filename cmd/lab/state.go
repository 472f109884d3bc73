package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
)

// stateVerbs are `lab state`'s subcommands.
var stateVerbs = map[string]func(g *globals, args []string) error{
	"list": runStateList,
	"show": runStateShow,
	"rm":   runStateRm,
}

// runState is `lab state list|show ADDR|rm ADDR…`.
func runState(g *globals, args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		fmt.Fprint(g.stderr, stateUsage)
		return reported{exitOK}
	}
	if len(args) == 0 || stateVerbs[args[0]] == nil {
		fmt.Fprint(g.stderr, stateUsage)
		if len(args) == 0 {
			return reported{exitError}
		}
		return fmt.Errorf("lab state has no subcommand %q%s (list, show, rm)", args[0], view.DidYouMean(args[0], []string{"list", "show", "rm"}))
	}
	return stateVerbs[args[0]](g, args[1:])
}

const stateUsage = `Usage: lab state <subcommand> [flags] [args]

Subcommands:
  list        List the objects the state holds
  show ADDR   Show one object: provider, id, name, status, owner, endpoint and the provider's data
  rm ADDR…    Forget objects: the state no longer lists them; the objects themselves are left as they are

Run ` + "`lab state <subcommand> -h`" + ` for its flags.
`

func runStateList(g *globals, args []string) error {
	fs := newFlags(g, "state list", "state list")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	st, err := g.op().StateStore().Load()
	if err != nil {
		return err
	}
	if len(st.Resources) == 0 {
		fmt.Fprintln(g.stdout, "The state lists no objects.")
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDRESS\tKIND\tNAME\tSTATUS\tPROVIDER")
	for _, r := range st.Resources {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Address, r.Kind, r.Name, r.Status, r.ProviderKey)
	}
	return tw.Flush()
}

// runStateShow is `lab state show [-json] ADDR`.
func runStateShow(g *globals, args []string) error {
	fs := newFlags(g, "state show", "state show [-json] ADDR")
	asJSON := fs.Bool("json", false, "print the object as JSON, as the state holds it")
	if err := parseFlags(fs, args, arity{1, 1, "one address (see lab state list)"}); err != nil {
		return err
	}
	st, err := g.op().StateStore().Load()
	if err != nil {
		return err
	}
	r, ok := st.Find(fs.Arg(0))
	if !ok {
		return operation.NotInState(st, fs.Arg(0))
	}
	if *asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return view.Resource(g.stdout, r)
}

// runStateRm is `lab state rm ADDR…`: forget objects, under the state lock.
func runStateRm(g *globals, args []string) error {
	fs := newFlags(g, "state rm", "state rm [-lock-timeout D] ADDR…")
	registerLockTimeout(g, fs)
	if err := parseFlags(fs, args, arity{1, 1 << 20, "one or more addresses (see lab state list)"}); err != nil {
		return err
	}
	if err := g.op().RemoveFromState(fs.Args()); err != nil {
		return err
	}
	for _, addr := range fs.Args() {
		fmt.Fprintf(g.stdout, "Removed %s from the state.\n", addr)
	}
	fmt.Fprintf(g.stdout, "The objects themselves were left as they are: lab no longer manages them (remove them by hand, or with `lab destroy -orphans`).\n")
	return nil
}
