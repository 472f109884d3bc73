package main

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/report"
)

// shells are the completion scripts `lab completion SHELL` prints.
var shells = map[string]string{"bash": view.BashCompletion, "zsh": view.ZshCompletion, "fish": view.FishCompletion}

// runCompletion is `lab completion bash|zsh|fish`: print a completion script.
func runCompletion(g *globals, args []string) error {
	fs := newFlags(g, "completion", "completion bash|zsh|fish")
	if err := parseFlags(fs, args, arity{1, 1, "one argument, the shell (bash, zsh or fish)"}); err != nil {
		return err
	}
	script, ok := shells[fs.Arg(0)]
	if !ok {
		return fmt.Errorf("completion: no script for shell %q (bash, zsh and fish have one)", fs.Arg(0))
	}
	fmt.Fprint(g.stdout, script)
	return nil
}

// complete is the hidden `lab __complete` the completion scripts call,
// printing candidates one a line:
//
//   - `lab __complete -- WORD… CUR`: the words typed after `lab` and the
//     one being completed (possibly empty); the candidates for CUR in
//     that context — verbs, a verb's flags, `state`'s subcommands,
//     `-format`'s values, `completion`'s shells — or nothing, when the
//     shell should complete file names;
//   - `lab __complete [VERB]` (the scripts of earlier versions): the
//     verbs and the global flags, or VERB's flags.
func complete(g *globals, args []string) int {
	if len(args) > 0 && args[0] == "--" {
		src := view.CompletionSource{Verbs: verbNames(), GlobalFlags: globalFlags, Formats: report.Formats, VerbFormats: map[string][]string{"compare": report.CompareFormats},
			Shells: slices.Sorted(maps.Keys(shells)), StateSubcommands: slices.Sorted(maps.Keys(stateVerbs)),
			Flags: func(path ...string) []string { return flagsOf(g, path...) }}
		fmt.Fprintln(g.stdout, strings.Join(view.Candidates(args[1:], src), "\n"))
		return exitOK
	}
	words := append(verbNames(), globalFlags...) // `lab __complete [VERB]`
	if len(args) > 0 {
		words = flagsOf(g, args[0])
	}
	fmt.Fprintln(g.stdout, strings.Join(words, "\n"))
	return exitOK
}

// globalFlags are the flags before a verb.
var globalFlags = []string{"-chdir=", "-no-color", "-version"}

// flagsOf is a verb's flags (path: the verb and, for state, its
// subcommand), read from its own -h usage so they never go stale.
func flagsOf(g *globals, path ...string) []string {
	var usage bytes.Buffer
	for _, v := range verbs() {
		if v.name == path[0] {
			h := *g
			h.stdout, h.stderr = &usage, &usage
			_ = v.run(&h, append(slices.Clone(path[1:]), "-h")) // -h only prints the flags
		}
	}
	return view.FlagsInUsage(usage.String())
}
