package operation

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// ResumePoint is an earlier run that `apply -resume` completes: the runs
// it has a result for are not run again.
type ResumePoint struct {
	// ID is the run's id.
	ID string
	// done are the record paths (results.RecordPath) with a result.
	done map[string]bool
	// repeats is each experiment's repeat count: a cell's warm-ups run
	// again when any of its repeats does.
	repeats map[string]int
	// orderSeed is the run's order seed, so the runs filled in keep the
	// order the run drew.
	orderSeed int64
}

// LoadResume reads the run arg names (an id, latest or previous) of lab
// from rs. It must be of this spec and not running.
func LoadResume(rs results.Store, lab *spec.Lab, arg string) (*ResumePoint, error) {
	id, err := rs.Resolve(arg)
	if err != nil {
		return nil, fmt.Errorf("-resume: %w", err)
	}
	info, recs, err := rs.Load(id)
	if err != nil {
		return nil, fmt.Errorf("-resume: %w", err)
	}
	switch {
	case info.Lab != lab.Name:
		return nil, fmt.Errorf("-resume: run %s is of lab %q, not %q", id, info.Lab, lab.Name)
	case info.SpecHash != lab.Hash:
		return nil, fmt.Errorf("-resume: run %s was made from other spec files than these: its cells would not be comparable. "+
			"Restore the spec it ran (git, %s) or start a new run with `lab apply`", id, ShortHash(info.SpecHash))
	case info.Status == results.StatusRunning:
		return nil, fmt.Errorf("-resume: run %s is still running (pid %d on %s)", id, info.PID, info.Host)
	}
	rp := &ResumePoint{ID: id, done: map[string]bool{}, repeats: map[string]int{}, orderSeed: info.OrderSeed}
	for _, r := range recs {
		if r.Error == "" {
			rp.done[results.RecordPath(r)] = true
		}
	}
	for _, e := range lab.Experiments {
		rp.repeats[e.Name] = max(e.Repeat, 1)
	}
	return rp, nil
}

// ShortHash is the first 12 characters of a hash, as lab shows it.
func ShortHash(h string) string { return h[:min(len(h), 12)] }

// needs reports whether r has no result in the run yet (missing, or
// failed); a warm-up, whether any repeat of its cell needs running.
func (rp *ResumePoint) needs(r plan.Run) bool {
	if !r.Warmup {
		return !rp.done[recordPath(r, r.Repeat, false)]
	}
	for n := 1; n <= rp.repeats[r.Experiment]; n++ {
		if !rp.done[recordPath(r, n, false)] {
			return true
		}
	}
	return false
}

func recordPath(r plan.Run, repeat int, warmup bool) string {
	return results.RecordPath(results.Record{Experiment: r.Experiment, Pair: r.Pair, CellKey: r.CellKey, Repeat: repeat, Warmup: warmup})
}

// Selection limits a plan to some runs: -only, -resume, or both.
type Selection struct {
	Only   Only
	Resume *ResumePoint
	// OrderSeed, not a selection but chosen with it, seeds the random run
	// order (-order-seed); 0: the resumed run's seed, or a new one.
	OrderSeed int64
}

// orderSeed is the seed the plan's random order is drawn from (0: new).
func (s Selection) orderSeed() int64 {
	if s.OrderSeed == 0 && s.Resume != nil {
		return s.Resume.orderSeed
	}
	return s.OrderSeed
}

// options are the plan options for the selection (none when it is empty).
func (s Selection) options() (func(plan.Run) bool, string) {
	var desc []string
	if len(s.Only) > 0 {
		desc = append(desc, "-only "+s.Only.String())
	}
	if s.Resume != nil {
		desc = append(desc, "-resume "+s.Resume.ID+" (the runs it has no result for)")
	}
	if len(desc) == 0 {
		return nil, ""
	}
	return func(r plan.Run) bool {
		return s.Only.Match(r) && (s.Resume == nil || s.Resume.needs(r))
	}, strings.Join(desc, ", ")
}

// ErrNothingToResume is a resumed run that has a result for every run
// the selection names.
var ErrNothingToResume = errors.New("nothing to resume")

// checkSelected refuses a plan whose selection left no runs.
func (s Selection) checkSelected(p *plan.Plan) error {
	if p.Selection == "" || len(p.Runs()) > 0 {
		return nil
	}
	if s.Resume != nil {
		return ErrNothingToResume
	}
	return fmt.Errorf("-only %s selects none of the lab's %d runs", s.Only.String(), p.AllRuns)
}
