package view

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// RunHeader prints a run's description, one field per line.
func RunHeader(w io.Writer, info results.RunInfo, recs []results.Record) {
	status := info.Status
	if info.Note != "" {
		status += " (" + info.Note + ")"
	}
	fmt.Fprintf(w, "Run %s of lab %q: %s\n", info.ID, info.Lab, status)
	fmt.Fprintf(w, "  started   %s", info.Started.Local().Format(time.DateTime))
	if !info.Ended.IsZero() {
		fmt.Fprintf(w, ", ended %s (%s)", info.Ended.Local().Format(time.DateTime), info.Ended.Sub(info.Started).Round(time.Second))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  host      %s, lab %s, spec %s\n", info.Host, info.LabVersion, operation.ShortHash(info.SpecHash))
	failed := 0
	applies := map[string]int{}
	for _, r := range recs {
		if r.Error != "" {
			failed++
		}
		applies[r.Provenance.Apply]++
	}
	fmt.Fprintf(w, "  records   %d (%d failed)\n", len(recs), failed)
	for _, s := range info.Stops {
		fmt.Fprintf(w, "  stopped   %s: %s after %d blocks — %s\n", s.Experiment, s.Reason, s.Blocks, s.Detail)
	}
	if len(applies) > 1 {
		var parts []string
		for _, a := range slices.Sorted(maps.Keys(applies)) {
			name := a
			if a == "" {
				name = "unnamed"
			}
			parts = append(parts, fmt.Sprintf("%s: %d", name, applies[a]))
		}
		fmt.Fprintf(w, "  applies   %s (resumed)\n", strings.Join(parts, ", "))
	}
}

// Resource prints a resource for people, one field per line.
func Resource(w io.Writer, r *state.Resource) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("address", r.Address)
	row("kind", r.Kind)
	row("provider", r.ProviderKey+" ("+r.Provider+")")
	row("id", r.ID)
	row("name", r.Name)
	row("status", r.Status)
	row("shape", r.Shape)
	if !r.CreatedAt.IsZero() {
		row("created", r.CreatedAt.Local().Format("2006-01-02 15:04:05"))
	}
	row("owner", strings.Trim(r.Owner.Lab+" / "+r.Owner.Workspace, " /"))
	if e := r.Endpoint; e != nil {
		row("endpoint", strings.TrimSpace(strings.Join([]string{e.Addr, e.Iface, e.Iface2}, " ")))
		if len(e.CPUs) > 0 {
			row("cpus", strings.Trim(fmt.Sprint(e.CPUs), "[]"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.Attrs)) {
		row("attrs."+k, r.Attrs[k])
	}
	return tw.Flush()
}

// TeardownTrouble says what a failed teardown left and what to do.
func TeardownTrouble(w io.Writer, err error) {
	if err == nil {
		return
	}
	var saveErr *engine.StateSaveError
	if errors.As(err, &saveErr) {
		fmt.Fprintln(w, "The state could not be saved during teardown (is the disk full?): it may still list objects that are gone. "+
			"Once it can be written, `lab destroy` finds them gone and clears them.")
		return
	}
	fmt.Fprintln(w, "Some objects could not be removed; they stay in the state. Run `lab destroy` to retry.")
}

// SavedPlanNote tells where -out wrote the plan: a file (or a symlink's
// target) can be applied later; a device, FIFO or /dev/stdout was written
// through (atomicfile.WriteFunc), and `lab apply` of it would find nothing.
func SavedPlanNote(out string) string {
	t, err := atomicfile.Resolve(out)
	switch {
	case err != nil || t.Kind == atomicfile.Regular && !t.Linked:
		return fmt.Sprintf("Saved the plan to %s; run `lab apply %s` to carry it out exactly.", out, out)
	case t.Kind == atomicfile.Regular:
		return fmt.Sprintf("Saved the plan to %s (the target of the symlink %s); run `lab apply %s` to carry it out exactly.", t.Path, out, out)
	}
	return fmt.Sprintf("Wrote the plan to %s (not a regular file, so written through: nothing to `lab apply` later).", out)
}

// DestroyPlan lists what destroy will remove: the state's objects, last
// created first, and with orphans the objects tagged as owner's it lost.
func DestroyPlan(w io.Writer, st *state.State, owner machine.Owner, orphans bool) {
	fmt.Fprintf(w, "lab %q (workspace %s) will destroy:\n\n", owner.Lab, owner.Workspace)
	for i := len(st.Resources) - 1; i >= 0; i-- {
		r := st.Resources[i]
		fmt.Fprintf(w, "  - %-7s %s  (%s, %s)\n", r.Kind, r.Address, r.Name, r.Status)
	}
	if orphans {
		fmt.Fprintf(w, "  and every object tagged as lab %q, workspace %s, that the state does not list\n", owner.Lab, owner.Workspace)
	}
}
