package main

import (
	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/lockfile"
	"github.com/lab-bench/lab/internal/operation"
)

// runInit is `lab init`: one operation call (operation.Operation.Init)
// prepares a lab directory (validates it, makes .lab/) and, with
// -upgrade, rewrites the lock file from the latest run's observations.
func runInit(g *globals, args []string) error {
	fs := newFlags(g, "init", "init [-upgrade] [-var k=v] [-var-file F]")
	var v varFlags
	v.register(fs)
	upgrade := fs.Bool("upgrade", false, "rewrite "+lockfile.FileName+" from the latest run")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	return g.op().Init(operation.InitArgs{Vars: v.opVars(), Upgrade: *upgrade}, view.Init{W: g.stdout})
}
