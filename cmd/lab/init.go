package main

import (
	"fmt"
	"os"

	"github.com/lab-bench/lab/internal/lockfile"
)

// runInit prepares a lab directory (validates it, makes .lab/) and, with
// -upgrade, rewrites the lock file from the latest run's observations:
// the way to accept a new kernel, driver, template or tool version.
func runInit(g *globals, args []string) error {
	fs := newFlags(g, "init", "init [-upgrade] [-var k=v] [-var-file F]")
	var v varFlags
	v.register(fs)
	upgrade := fs.Bool("upgrade", false, "rewrite "+lockfile.FileName+" from the latest run")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.op().StateDir(), 0o700); err != nil {
		return err
	}
	locked, _, err := lockfile.Read(g.dir)
	if err != nil {
		return err
	}
	if !*upgrade {
		if locked == nil {
			fmt.Fprintf(g.stdout, "Lab %q is ready. The first complete `lab apply` writes %s; commit it beside the spec.\n", lab.Name, lockfile.FileName)
		} else {
			fmt.Fprintf(g.stdout, "Lab %q is ready; %s pins %d machine(s) and %d tool(s).\n", lab.Name, lockfile.FileName, len(locked.Machines), len(locked.Tools))
		}
		return nil
	}
	id, next, err := g.op().LatestObserved()
	if err != nil {
		return err
	}
	if locked != nil {
		for _, msg := range locked.Drift(next) {
			fmt.Fprintf(g.stdout, "  ~ %s\n", msg)
		}
	}
	if _, err := lockfile.Write(g.dir, next); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "Wrote %s from run %s: %d machine(s), %d tool(s).\n", lockfile.FileName, id, len(next.Machines), len(next.Tools))
	return nil
}
