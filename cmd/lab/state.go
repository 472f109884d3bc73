package main

import (
	"fmt"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
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

// runStateList is `lab state list`: one operation call
// (operation.Operation.StateList) shown through state's view.
func runStateList(g *globals, args []string) error {
	fs := newFlags(g, "state list", "state list")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	return g.op().StateList(view.State{W: g.stdout})
}

// runStateShow is `lab state show [-json] ADDR`.
func runStateShow(g *globals, args []string) error {
	fs := newFlags(g, "state show", "state show [-json] ADDR")
	asJSON := fs.Bool("json", false, "print the object as JSON, as the state holds it")
	if err := parseFlags(fs, args, arity{1, 1, "one address (see lab state list)"}); err != nil {
		return err
	}
	return g.op().StateShow(fs.Arg(0), view.State{W: g.stdout, JSON: *asJSON})
}

// runStateRm is `lab state rm ADDR…`: forget objects, under the state lock.
func runStateRm(g *globals, args []string) error {
	fs := newFlags(g, "state rm", "state rm [-lock-timeout D] ADDR…")
	registerLockTimeout(g, fs)
	if err := parseFlags(fs, args, arity{1, 1 << 20, "one or more addresses (see lab state list)"}); err != nil {
		return err
	}
	return g.op().StateRm(fs.Args(), view.State{W: g.stdout})
}
