package vsphere

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"syscall"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/types"
)

// Switch locks. The switch records (mtuField) are read, changed and written
// back; two lab processes doing that on one host or distributed switch at
// once lose a holder. vCenter has no compare-and-swap for custom values,
// but adding a custom field definition whose name exists fails with
// DuplicateName, atomically: lab adds "lab-lock <type>:<id>" for the
// entity carrying the records, holds it while it reads and writes them,
// and removes it (by key) when done. The holder writes who it is and when
// (lockHolder) as the lock field's value on the entity; a lock older than
// LockStale, or held by a process of this machine that is gone, is taken
// over by removing it by its key — a removal another waiter already made
// fails, so only one takes over.

// LockStale is how old another process's switch lock must be before lab
// takes it over (a lock is held for a few API calls).
var LockStale = 2 * time.Minute

// LockWait bounds the wait for a switch lock another process holds.
var LockWait = 5 * time.Minute

// lockUnclaimed is how long a lock may stay without a holder's value (its
// maker died between adding it and writing its value) before it is stale.
const lockUnclaimed = 30 * time.Second

// lockHolder is the value a lock's holder writes.
type lockHolder struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Nonce string    `json:"nonce"`
	At    time.Time `json:"at"`
}

func (h lockHolder) String() string {
	return fmt.Sprintf("pid %d on %s since %s", h.PID, h.Host, h.At.Format(time.RFC3339))
}

// lockName is the custom field definition that locks e's records.
func lockName(e types.ManagedObjectReference) string { return "lab-lock " + e.Type + ":" + e.Value }

// lockSwitches serialises changes to the switch records on e: within
// this process (linkMu) and between processes (vcLock).
func (p *Provider) lockSwitches(ctx context.Context, c *vim25.Client, e types.ManagedObjectReference) (func(), error) {
	p.linkMu.Lock()
	unlock, err := vcLock(ctx, c, e)
	if err != nil {
		p.linkMu.Unlock()
		return nil, err
	}
	return func() { unlock(); p.linkMu.Unlock() }, nil
}

// vcLock takes e's lock in vCenter (see above), waiting up to LockWait
// while another process holds it. An endpoint without custom attributes
// (a bare ESXi) has no records to protect: nothing is locked.
func vcLock(ctx context.Context, c *vim25.Client, e types.ManagedObjectReference) (func(), error) {
	if c.ServiceContent.CustomFieldsManager == nil {
		return func() {}, nil
	}
	m := object.NewCustomFieldsManager(c)
	name := lockName(e)
	me := lockHolder{PID: os.Getpid(), Nonce: nonce()}
	me.Host, _ = os.Hostname()
	deadline := time.Now().Add(LockWait)
	unclaimedKey := int32(-1)
	var unclaimedSince time.Time
	for {
		def, err := m.Add(ctx, name, "", nil, nil)
		if err == nil {
			me.At = time.Now().UTC()
			b, _ := json.Marshal(me)
			if err := m.Set(ctx, e, def.Key, string(b)); err != nil {
				_ = m.Remove(context.WithoutCancel(ctx), def.Key) // best effort: unclaimed, it turns stale
				return nil, fmt.Errorf("lock the switch records of %s: %w", e.Value, err)
			}
			return func() { _ = m.Remove(context.WithoutCancel(ctx), def.Key) }, nil // gone already: taken over as stale
		}
		if !fault.Is(err, &types.DuplicateName{}) {
			return nil, fmt.Errorf("lock the switch records of %s: %w", e.Value, err)
		}
		key, held, found, err := lockHeld(ctx, c, m, e, name)
		if err != nil {
			return nil, fmt.Errorf("lock the switch records of %s: %w", e.Value, err)
		}
		if !found {
			continue // released meanwhile
		}
		now := time.Now()
		stale := false
		switch {
		case held.At.IsZero():
			if unclaimedKey != key {
				unclaimedKey, unclaimedSince = key, now
			}
			stale = now.Sub(unclaimedSince) > lockUnclaimed
		case now.Sub(held.At) > LockStale:
			stale = true
		case held.Host == me.Host && held.PID != me.PID && gone(held.PID):
			stale = true
		}
		if stale {
			if err := m.Remove(ctx, key); err != nil && !isNotFound(err) {
				return nil, fmt.Errorf("take over the stale lock of %s (%s): %w", e.Value, held, err)
			}
			continue
		}
		if now.After(deadline) {
			return nil, fmt.Errorf("the switch records of %s are locked by %s (custom attribute %q; lab takes it over once it is %s old)",
				e.Value, held, name, LockStale)
		}
		if err := sleep(ctx, jitter()); err != nil {
			return nil, err
		}
	}
}

// lockHeld returns the key of a lock and its holder's value; found is
// false when there is none (keys start at 0).
func lockHeld(ctx context.Context, c *vim25.Client, m *object.CustomFieldsManager, e types.ManagedObjectReference, name string) (key int32, h lockHolder, found bool, err error) {
	key, err = m.FindKey(ctx, name)
	if errors.Is(err, object.ErrKeyNameNotFound) {
		return 0, h, false, nil
	}
	if err != nil {
		return 0, h, false, err
	}
	v, _, err := getFieldKey(ctx, object.NewCommon(c, e), key)
	if err != nil {
		return 0, h, false, err
	}
	if v != "" {
		_ = json.Unmarshal([]byte(v), &h) // an unreadable value counts as unclaimed
	}
	return key, h, true, nil
}

// gone reports whether no process pid runs on this machine.
func gone(pid int) bool { return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func nonce() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported systems
	return hex.EncodeToString(b)
}

// jitter is a wait between 20 and 120 ms, so waiters do not retry in step.
func jitter() time.Duration {
	n, _ := rand.Int(rand.Reader, big.NewInt(100))
	return time.Duration(20+n.Int64()) * time.Millisecond
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
