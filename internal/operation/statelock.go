package operation

import (
	"errors"
	"fmt"
	"time"

	"github.com/lab-bench/lab/internal/state"
)

// lockPoll is how often a waiting command tries the state lock again.
const lockPoll = 200 * time.Millisecond

// LockState takes store's state lock for op on lab labID, waiting up to
// o.LockTimeout while another command holds it. The first wait prints
// who holds it; running out of time returns the holder's *LockedError.
func (o *Operation) LockState(store state.Store, labID, op string) (func() error, error) {
	deadline := time.Now().Add(o.LockTimeout)
	told := false
	for {
		unlock, err := store.Lock(state.NewLockInfo(labID, op))
		var locked *state.LockedError
		if err == nil || !errors.As(err, &locked) || !time.Now().Before(deadline) {
			if err != nil && told {
				err = fmt.Errorf("gave up after -lock-timeout=%s: %w", o.LockTimeout, err)
			}
			return unlock, err
		}
		if !told {
			fmt.Fprintf(o.Stderr, "Waiting up to %s for the state lock: %v.\n", o.LockTimeout, locked)
			told = true
		}
		time.Sleep(min(lockPoll, time.Until(deadline)))
	}
}
