package operation

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/lab-bench/lab/internal/archive"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/state"
)

// hostLockDir holds the host-wide benchmark lock: one per machine, whatever
// the lab or directory (LAB_HOST_LOCK_DIR overrides it).
func (o *Operation) hostLockDir() string {
	if v := EnvValue(o.Env, "LAB_HOST_LOCK_DIR"); v != "" {
		return v
	}
	if os.Geteuid() == 0 {
		return "/run/lab"
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("lab-%d", os.Getuid()))
}

// HostLock returns the engine's HostLock. With a PostgreSQL archive it
// first takes the team's lock on the run's footprint (teamLock: every
// hypervisor host, vCenter host, hosts machine or this machine the run
// loads), which serialises the team's runners on each. Then, for a run
// on this host (LockScope.ThisHost), the state package's flock with
// holder info, on a directory shared by every lab on this machine. While
// another holds either, the user is told who, once per wait.
func (o *Operation) HostLock(labID string) func(ctx context.Context, scope engine.LockScope) (func(), error) {
	store := state.Store{Dir: o.hostLockDir()}
	warned := &atomic.Bool{}
	return func(ctx context.Context, scope engine.LockScope) (func(), error) {
		team := func() {}
		if loc := o.ArchiveLocation(); archive.IsPostgres(loc) {
			release, ok, err := o.teamLock(ctx, loc, labID, o.teamResources(ctx, scope, warned))
			if err != nil {
				return nil, err
			}
			if ok {
				team = release
			}
		}
		if !scope.ThisHost {
			return team, nil
		}
		unlock, err := o.fileLock(ctx, store, labID)
		if err != nil {
			team()
			return nil, err
		}
		return func() { unlock(); team() }, nil
	}
}

// fileLock waits for the host lock file in store, telling once who holds it.
func (o *Operation) fileLock(ctx context.Context, store state.Store, labID string) (func(), error) {
	told := false
	for {
		unlock, err := store.Lock(state.NewLockInfo(labID, "benchmark"))
		if err == nil {
			return func() { o.releaseLock(unlock) }, nil
		}
		var locked *state.LockedError
		if !errors.As(err, &locked) {
			return nil, fmt.Errorf("host benchmark lock: %w", err)
		}
		if !told {
			who := "another lab"
			if h := locked.Holder; h != nil {
				who = fmt.Sprintf("lab %q (%s, pid %d)", h.LabID, h.Who, h.PID)
			}
			fmt.Fprintf(o.Stderr, "\nWaiting for this host's benchmark lock (%s): %s is running a benchmark on these CPUs.\n", locked.Path, who)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
