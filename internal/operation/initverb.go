package operation

import (
	"os"

	"github.com/lab-bench/lab/internal/lockfile"
)

// InitArgs are init's arguments, parsed from its flags by the CLI.
type InitArgs struct {
	Vars Vars
	// Upgrade rewrites the lock file from the latest run's observations.
	Upgrade bool
}

// InitView shows what init did.
type InitView interface {
	// Ready says that lab is ready; locked is its lock file (nil: none).
	Ready(lab string, locked *lockfile.Lock)
	// Drift names one way the latest run differs from the lock file.
	Drift(msg string)
	// Wrote says that the lock file next was written from run runID.
	Wrote(runID string, next *lockfile.Lock)
}

// Init is `lab init`: it loads the spec, makes the state directory and,
// with Upgrade, rewrites the lock file from the latest run's
// observations (showing how they drifted from the old one): the way to
// accept a new kernel, driver, template or tool version.
func (o *Operation) Init(args InitArgs, view InitView) error {
	lab, err := o.LoadLab(args.Vars)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.StateDir(), 0o700); err != nil {
		return err
	}
	locked, _, err := lockfile.Read(o.Dir)
	if err != nil {
		return err
	}
	if !args.Upgrade {
		view.Ready(lab.Name, locked)
		return nil
	}
	id, next, err := o.LatestObserved()
	if err != nil {
		return err
	}
	if locked != nil {
		for _, msg := range locked.Drift(next) {
			view.Drift(msg)
		}
	}
	if _, err := lockfile.Write(o.Dir, next); err != nil {
		return err
	}
	view.Wrote(id, next)
	return nil
}
