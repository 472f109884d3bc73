package main

import "github.com/lab-bench/lab/internal/operation"

// useColor reports whether output to w may use ANSI colours: w is a
// terminal, and neither -no-color nor NO_COLOR (set to anything but the
// empty string, https://no-color.org) asks for plain text.
func useColor(g *globals, w any) bool {
	return !g.noColor && !noColorEnv(g.env) && isTerminal(w)
}

// noColorEnv reports whether env sets NO_COLOR to a non-empty value.
func noColorEnv(env []string) bool { return operation.EnvValue(env, "NO_COLOR") != "" }
