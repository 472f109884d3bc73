package operation

import (
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/state"
)

// RemoveFromState forgets the objects at addrs (lab state rm), under the
// state lock: the state no longer lists them; the objects themselves are
// left as they are. Every address must be one the state lists, or nothing
// is removed.
func (o *Operation) RemoveFromState(addrs []string) error {
	store := o.StateStore()
	unlock, err := o.LockState(store, "", "state rm")
	if err != nil {
		return err
	}
	defer o.releaseLock(unlock)
	st, err := store.Load()
	if err != nil {
		return err
	}
	for _, addr := range addrs {
		if _, ok := st.Find(addr); !ok {
			return NotInState(st, addr)
		}
	}
	for _, addr := range addrs {
		st.Remove(addr)
	}
	return store.Save(st)
}

// NotInState is the error for an address the state does not list.
func NotInState(st *state.State, addr string) error {
	var have []string
	for _, r := range st.Resources {
		have = append(have, r.Address)
	}
	if len(have) == 0 {
		return fmt.Errorf("the state lists no %s: it lists no objects at all", addr)
	}
	return fmt.Errorf("the state lists no %s (it lists: %s)", addr, strings.Join(have, ", "))
}
