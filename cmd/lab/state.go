package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/lab-bench/lab/state"
)

func runState(g *globals, args []string) error {
	if len(args) == 0 || args[0] != "list" {
		return fmt.Errorf("usage: lab state list")
	}
	fs := newFlags(g, "state list", "state list")
	if err := parseFlags(fs, args[1:], noArgs); err != nil {
		return err
	}
	st, err := state.Store{Dir: stateDir(g)}.Load()
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
