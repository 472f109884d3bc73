package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/lab-bench/lab/state"
)

// lockPoll is how often a waiting command tries the state lock again.
const lockPoll = 200 * time.Millisecond

// registerLockTimeout adds -lock-timeout to a verb that takes the state
// lock.
func registerLockTimeout(g *globals, fs *flag.FlagSet) {
	fs.DurationVar(&g.lockTimeout, "lock-timeout", 0, "wait up to `DURATION` (\"30s\", \"5m\") for the state lock when another command holds it (default: fail at once)")
}

// lockState takes store's state lock for op on lab labID, waiting up to
// g.lockTimeout while another command holds it. The first wait prints
// who holds it; running out of time returns the holder's *LockedError.
func lockState(g *globals, store state.Store, labID, op string) (func() error, error) {
	deadline := time.Now().Add(g.lockTimeout)
	told := false
	for {
		unlock, err := store.Lock(state.NewLockInfo(labID, op))
		var locked *state.LockedError
		if err == nil || !errors.As(err, &locked) || !time.Now().Before(deadline) {
			if err != nil && told {
				err = fmt.Errorf("gave up after -lock-timeout=%s: %w", g.lockTimeout, err)
			}
			return unlock, err
		}
		if !told {
			fmt.Fprintf(g.stderr, "Waiting up to %s for the state lock: %v.\n", g.lockTimeout, locked)
			told = true
		}
		time.Sleep(min(lockPoll, time.Until(deadline)))
	}
}
