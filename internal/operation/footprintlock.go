package operation

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/providers"
)

// teamLockReach bounds reaching the team's archive for each run's lock:
// a database that does not answer costs each run this, then the file lock.
const teamLockReach = 10 * time.Second

// outOfReach is the warning of a team lock out of reach: a run on this
// machine still takes its file lock; a run elsewhere has no lock at all.
const outOfReach = "Warning: the team's benchmark lock is out of reach (%v): a run on this machine takes its file lock only, a run on another host none.\n"

// openArchive opens the team's archive; a test replaces it to lose the
// database between opening and locking.
var openArchive = archive.Open

// teamLock takes the benchmark lock of a run's footprint resources
// (teamResources; none: everything) as PostgreSQL advisory locks in the
// team's archive at loc, so that runners sharing the archive never
// benchmark on one host at once; the wait names who holds it. ok is
// false when the archive cannot be reached: the caller then takes the
// file lock, which still guards this machine. A database lost between
// opening and locking is out of reach too; only a cancelled wait
// (Ctrl-C, a timeout) is an error.
func (o *Operation) teamLock(ctx context.Context, loc, labID string, resources []string) (release func(), ok bool, err error) {
	open, cancel := context.WithTimeout(ctx, teamLockReach)
	defer cancel()
	s, err := openArchive(open, loc)
	if err != nil {
		fmt.Fprintf(o.Stderr, outOfReach, err)
		return nil, false, nil
	}
	me := archive.Holder{Runner: o.runnerName(), Lab: labID, PID: os.Getpid(), Since: time.Now()}
	unlock, err := s.LockFootprint(ctx, resources, me, func(r string, h archive.Holder) {
		if r == archive.Everything {
			r = "every footprint (this run's or another's is unknown: it runs alone)"
		}
		fmt.Fprintf(o.Stderr, "\nWaiting for the team's benchmark lock on %s (%s): %s is running a benchmark there.\n", r, s.Where, h)
	})
	if err != nil {
		_ = s.Close()
		if ctx.Err() != nil {
			return nil, true, fmt.Errorf("team benchmark lock: %w", err)
		}
		fmt.Fprintf(o.Stderr, outOfReach, err)
		return nil, false, nil
	}
	return func() { unlock(); _ = s.Close() }, true, nil
}

// teamResources are the team lock's resources of a run: its footprint as
// the back ends name it for a team (engine.LockScope.Team), this machine
// named by thisMachineResource. None (everything) when a back end cannot
// name its machine, said once per apply (warned).
func (o *Operation) teamResources(ctx context.Context, scope engine.LockScope, warned *atomic.Bool) []string {
	var fp providers.Footprint
	err := fmt.Errorf("no footprint given")
	if scope.Team != nil {
		fp, err = scope.Team(ctx)
	}
	if err != nil || fp.Everything() {
		if !warned.Swap(true) {
			fmt.Fprintf(o.Stderr, "Warning: the team's benchmark lock cannot name a run's footprint (%v): such runs run alone among the team's runners.\n", err)
		}
		return nil
	}
	rs := make([]string, len(fp.Resources))
	for i, r := range fp.Resources {
		if r == providers.ThisMachine {
			r = thisMachineResource()
		}
		rs[i] = r
	}
	return rs
}

// runnerName names this runner to the others: LAB_RUNNER, else the host
// name.
func (o *Operation) runnerName() string {
	if v := EnvValue(o.Env, "LAB_RUNNER"); v != "" {
		return v
	}
	h, _ := os.Hostname()
	return h
}

// thisMachineResource is providers.ThisMachine named so that two runners'
// machines never share a name: by /etc/machine-id (else the host name).
func thisMachineResource() string {
	id, err := os.ReadFile("/etc/machine-id")
	if s := strings.TrimSpace(string(id)); err == nil && s != "" {
		return providers.ThisMachine + " machine-id:" + s
	}
	h, _ := os.Hostname()
	return providers.ThisMachine + " hostname:" + h
}
