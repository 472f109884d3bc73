package main

import (
	"context"
	"fmt"
)

func runValidate(g *globals, args []string) error {
	fs := newFlags(g, "validate", "validate [-var k=v] [-var-file F]")
	var v varFlags
	v.register(fs)
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	if _, err := configureProviders(context.Background(), g, lab); err != nil {
		return err
	}
	cells := 0
	for _, e := range lab.Experiments {
		n := len(e.Pairs)
		for _, d := range e.Matrix {
			n *= len(d.Values)
		}
		cells += n
	}
	fmt.Fprintf(g.stdout, "Success! Lab %q is valid: %d experiment(s), %d pair(s), %d cell(s).\n", lab.Name, len(lab.Experiments), len(lab.Pairs), cells)
	return nil
}
