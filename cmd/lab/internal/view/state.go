package view

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/lab-bench/lab/internal/state"
)

// State is `lab state`'s view (operation.StateView) on W; with JSON,
// state show prints the object as the state holds it.
type State struct {
	W    io.Writer
	JSON bool
}

// List shows the objects as a table.
func (v State) List(rs []state.Resource) error {
	if len(rs) == 0 {
		fmt.Fprintln(v.W, "The state lists no objects.")
		return nil
	}
	tw := tabwriter.NewWriter(v.W, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ADDRESS\tKIND\tNAME\tSTATUS\tPROVIDER")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Address, r.Kind, r.Name, r.Status, r.ProviderKey)
	}
	return tw.Flush()
}

// Show shows one object.
func (v State) Show(r *state.Resource) error {
	if v.JSON {
		enc := json.NewEncoder(v.W)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return Resource(v.W, r)
}

// Removed says which objects the state forgot, and that they remain.
func (v State) Removed(addrs []string) {
	for _, addr := range addrs {
		fmt.Fprintf(v.W, "Removed %s from the state.\n", addr)
	}
	fmt.Fprintf(v.W, "The objects themselves were left as they are: lab no longer manages them (remove them by hand, or with `lab destroy -orphans`).\n")
}
