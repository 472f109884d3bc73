package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/lab-bench/lab/internal/results"
)

// RunCommands prints, for `lab show RUN`, the command lines lab ran on
// the server and the client (bench.Raw's server_argv and client_argv, kept
// beside the tool's output), once per experiment and pair: those of its
// first measured record. Ports and the cell's values differ from record
// to record; `lab show -json` has every record's. Records written before
// lab kept them show nothing.
func RunCommands(w io.Writer, recs []results.Record) {
	seen := map[string]bool{}
	header := false
	for _, r := range recs {
		key := r.Experiment + "\x00" + r.Pair
		if r.Warmup || seen[key] || len(r.Raw.ServerArgv)+len(r.Raw.ClientArgv) == 0 {
			continue
		}
		seen[key] = true
		if !header {
			fmt.Fprintln(w, "  commands  (the first measured record of each experiment and pair; lab show -json has every record's)")
			header = true
		}
		fmt.Fprintf(w, "    %s / %s (%s, repeat %d):\n", esc(r.Experiment), esc(r.Pair), esc(r.CellKey), r.Repeat)
		if len(r.Raw.ServerArgv) > 0 {
			fmt.Fprintf(w, "      server  %s\n", ShellLine(r.Raw.ServerArgv))
		}
		if len(r.Raw.ClientArgv) > 0 {
			fmt.Fprintf(w, "      client  %s\n", ShellLine(r.Raw.ClientArgv))
		}
	}
}

// ShellLine renders argv as a shell would take it back: each argument as
// is when it holds only safe characters, else in single quotes; control
// bytes are escaped so that a record cannot drive the terminal.
func ShellLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+-@%") == "" {
			parts[i] = a
			continue
		}
		parts[i] = "'" + strings.ReplaceAll(esc(a), "'", `'\''`) + "'"
	}
	return strings.Join(parts, " ")
}

// esc is diagtext.EscapeText on one line.
func esc(s string) string { return diagtext.EscapeText(s, false) }
