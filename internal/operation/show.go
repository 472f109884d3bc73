package operation

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// ShowView shows a saved plan or a run.
type ShowView interface {
	// Plan shows a saved plan.
	Plan(p *plan.Plan) error
	// Run shows a run: what it is, which applies wrote it, its records.
	Run(info results.RunInfo, recs []results.Record) error
}

// Show is `lab show [PLANFILE | RUN]`: arg names a saved plan file (as
// given, relative to where lab was started) or a run (an id, latest or
// previous; "" the latest), shown through the view.
func (o *Operation) Show(arg string, view ShowView) error {
	if arg != "" && isFile(arg) {
		p, err := plan.Load(arg)
		if err != nil {
			return err
		}
		return view.Plan(p)
	}
	rs := o.ResultStore()
	if arg == "" {
		arg = results.AliasLatest
	}
	id, err := rs.Resolve(arg)
	if err != nil {
		if _, statErr := os.Stat(filepath.Join(o.Dir, arg)); statErr == nil {
			return fmt.Errorf("%s is neither a saved plan file nor a run id (paths are relative to where lab was started)", arg)
		}
		return err
	}
	info, recs, err := rs.Load(id)
	if err != nil {
		return err
	}
	return view.Run(info, recs)
}

// isFile reports whether path names a regular file (a saved plan).
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
