package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
)

// arity is how many positional arguments a verb takes after its flags.
// what describes them for the usage error ("at most one argument, a
// run id").
type arity struct {
	min, max int
	what     string
}

// noArgs is the arity of a verb that takes flags only.
var noArgs = arity{0, 0, "no arguments"}

// optionalArg is the arity of a verb that takes at most one argument,
// described by what.
func optionalArg(what string) arity { return arity{0, 1, "at most one argument, " + what} }

// parseFlags parses a verb's args: flags first, then between want.min and
// want.max positional arguments. -h is a clean exit. A flag after a
// positional argument (which the flag package would silently take as one
// more argument) and a wrong number of arguments are usage errors: the
// error and the verb's usage are printed and reported{1} comes back.
func parseFlags(fs *flag.FlagSet, args []string, want arity) error {
	usage := fs.Usage // the flag package prints "not defined: -x", then calls Usage
	fs.Usage = func() { fmt.Fprint(fs.Output(), view.UnknownFlagHint(fs, args)); usage() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return reported{exitOK}
		}
		return reported{exitError}
	}
	if err := checkArgs(fs.Name(), args, fs.Args(), want); err != nil {
		fmt.Fprintf(fs.Output(), "Error: %v\n\n", err)
		fs.Usage()
		return reported{exitError}
	}
	return nil
}

// checkArgs checks the positional arguments rest left after parsing args.
func checkArgs(verb string, args, rest []string, want arity) error {
	if !afterTerminator(args, rest) {
		for i, a := range rest {
			if len(a) > 1 && strings.HasPrefix(a, "-") && i > 0 {
				return fmt.Errorf("flag %s comes after the argument %q: flags go before arguments", a, rest[0])
			}
		}
	}
	if len(rest) < want.min || len(rest) > want.max {
		got := "none"
		if len(rest) > 0 {
			got = fmt.Sprintf("%d: %s", len(rest), strings.Join(rest, " "))
		}
		return fmt.Errorf("%s takes %s; got %s", verb, want.what, got)
	}
	return nil
}

// afterTerminator reports whether the positional arguments rest followed
// "--", after which an argument may start with "-".
func afterTerminator(args, rest []string) bool {
	n := len(args) - len(rest)
	return n > 0 && args[n-1] == "--"
}
