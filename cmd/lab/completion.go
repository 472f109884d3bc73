package main

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
)

// runCompletion is `lab completion bash|zsh`: print a completion script.
func runCompletion(g *globals, args []string) error {
	fs := newFlags(g, "completion", "completion bash|zsh")
	if err := parseFlags(fs, args, arity{1, 1, "one argument, the shell (bash or zsh)"}); err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "bash":
		fmt.Fprint(g.stdout, view.BashCompletion)
	case "zsh":
		fmt.Fprint(g.stdout, view.ZshCompletion)
	default:
		return fmt.Errorf("completion: no script for shell %q (bash and zsh have one)", fs.Arg(0))
	}
	return nil
}

// flagLine is a flag in a verb's usage ("  -auto-approve", "  -var name=value").
var flagLine = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)

// complete is the hidden `lab __complete [VERB]` the completion script
// calls: the verbs (and the global flags), or VERB's flags, one a line.
func complete(g *globals, args []string) int {
	var words []string
	if len(args) == 0 {
		for _, v := range verbs() {
			words = append(words, v.name)
		}
		words = append(words, "-chdir=", "-no-color", "-version")
	} else {
		for _, v := range verbs() {
			if v.name != args[0] {
				continue
			}
			var usage bytes.Buffer
			h := *g
			h.stdout, h.stderr = &usage, &usage
			_ = v.run(&h, []string{"-h"}) // -h only prints the flags
			for _, m := range flagLine.FindAllStringSubmatch(usage.String(), -1) {
				if f := "-" + m[1]; !slices.Contains(words, f) {
					words = append(words, f)
				}
			}
		}
	}
	fmt.Fprintln(g.stdout, strings.Join(words, "\n"))
	return exitOK
}
