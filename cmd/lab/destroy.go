package main

import (
	"fmt"

	"github.com/lab-bench/lab/engine"
)

func runDestroy(g *globals, args []string) error {
	fs := newFlags(g, "destroy", "destroy [-auto-approve] [-orphans] [-json]")
	var v varFlags
	v.register(fs)
	auto := fs.Bool("auto-approve", false, "skip the interactive approval")
	orphans := fs.Bool("orphans", false, "also remove objects tagged with the lab id that the state does not list")
	asJSON := fs.Bool("json", false, "print machine-readable events, one JSON object per line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	w, err := openWorkspace(g, v, "destroy")
	if err != nil {
		return err
	}
	defer w.release(g)
	lab, provs, store, st := w.lab, w.providers, w.store, w.state
	defer closeProviders(g, provs)
	if len(st.Resources) == 0 && !*orphans {
		fmt.Fprintln(g.stdout, "Nothing to destroy: the state lists no objects. (`lab destroy -orphans` also looks for objects the state lost.)")
		return nil
	}
	if !*asJSON {
		fmt.Fprintf(g.stdout, "lab %q will destroy:\n\n", lab.Name)
		for i := len(st.Resources) - 1; i >= 0; i-- {
			r := st.Resources[i]
			fmt.Fprintf(g.stdout, "  - %-7s %s  (%s, %s)\n", r.Kind, r.Address, r.Name, r.Status)
		}
		if *orphans {
			fmt.Fprintf(g.stdout, "  and every object tagged with lab id %q that the state does not list\n", lab.Name)
		}
	}
	if !*auto {
		if ok, err := approve(g); err != nil || !ok {
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, "Destroy cancelled.")
			return nil
		}
	}
	var view engine.View
	if *asJSON {
		view = newJSONView(g.stdout)
	} else {
		hv := newHumanView(g.stdout, false)
		defer hv.Close()
		view = hv
	}
	eng := &engine.Engine{State: st, Store: store, Providers: provs, OS: osDriver, View: view}
	_, teardown, stop := interrupts(g.stderr)
	defer stop()
	if err := eng.Destroy(teardown, lab.Name, *orphans); err != nil {
		return err
	}
	if !*asJSON {
		fmt.Fprintln(g.stdout, "Destroy complete.")
	}
	return nil
}
