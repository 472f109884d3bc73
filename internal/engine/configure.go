package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/lab-bench/lab/guest"
)

// changesApplier is a guest.OS that can apply only what differs from a
// verified read-back (linux.Linux.ApplyChanges): prev are the settings
// last applied to the interface, now what Observe read back after them.
type changesApplier interface {
	ApplyChanges(ctx context.Context, t guest.Transport, iface string, prev guest.Settings, now guest.Observed, s guest.Settings) error
}

// settingsObserver is a guest.OS that can read back only the settings,
// taking what no setting changes (kernel, driver, link speed) from an
// earlier read-back of the interface (linux.Linux.ObserveSettings).
type settingsObserver interface {
	ObserveSettings(ctx context.Context, t guest.Transport, iface string, s guest.Settings, known guest.Observed) (guest.Observed, error)
}

// observeHeld reads back s on an interface whose last read-back, known,
// verified: only the settings when the OS can (settingsObserver), else
// everything.
func observeHeld(ctx context.Context, side end, iface string, s guest.Settings, known guest.Observed) (guest.Observed, error) {
	if so, ok := side.os.(settingsObserver); ok {
		return so.ObserveSettings(ctx, side.t, iface, s, known)
	}
	return side.os.Observe(ctx, side.t, iface, s)
}

// heldSettings is, per interface of one end, the settings last applied
// and the read-back that verified them — what the next run's configure
// may start from instead of applying everything again.
type heldSettings struct {
	mu sync.Mutex
	by map[string]heldState
}

type heldState struct {
	s   guest.Settings
	obs guest.Observed
}

func (h *heldSettings) get(iface string) (heldState, bool) {
	if h == nil {
		return heldState{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.by[iface]
	return st, ok
}

// set records a verified state; ok false forgets the interface's.
func (h *heldSettings) set(iface string, st heldState, ok bool) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.by == nil {
		h.by = map[string]heldState{}
	}
	if ok {
		h.by[iface] = st
	} else {
		delete(h.by, iface)
	}
}

// configure applies settings to one end and verifies them by observation.
// After a run whose settings were verified in full, the next run on the
// end applies only what differs from that read-back (changesApplier),
// then observes and verifies as always (every setting; the kernel, driver
// and link speed are taken from that read-back when the OS can:
// settingsObserver); if that finds anything amiss — or
// fails — it applies everything again, as the first run did. Every
// record's observation is read after its own run's settings were applied.
func configure(ctx context.Context, side end, s guest.Settings) (guest.Observed, error) {
	iface := side.ep().Iface
	if last, ok := side.held.get(iface); ok {
		if ca, can := side.os.(changesApplier); can {
			if ca.ApplyChanges(ctx, side.t, iface, last.s, last.obs, s) == nil {
				obs, err := observeHeld(ctx, side, iface, s, last.obs)
				if err == nil && len(guest.Verify(s, obs)) == 0 {
					side.held.set(iface, heldState{s, obs}, true)
					return obs, nil
				}
			}
			if err := ctx.Err(); err != nil {
				return guest.Observed{}, fmt.Errorf("configure %s: %w", side.in.Address, err)
			}
		}
	}
	side.held.set(iface, heldState{}, false)
	if err := side.os.Apply(ctx, side.t, iface, s); err != nil {
		return guest.Observed{}, fmt.Errorf("configure %s: %w", side.in.Address, err)
	}
	obs, err := side.os.Observe(ctx, side.t, iface, s)
	if err != nil {
		return obs, fmt.Errorf("observe %s: %w", side.in.Address, err)
	}
	if problems := guest.Verify(s, obs); len(problems) > 0 {
		if s.Strict {
			return obs, &SettingsError{Guest: side.in.Address, Problems: problems}
		}
		obs.Warnings = append(obs.Warnings, problems...)
		return obs, nil
	}
	side.held.set(iface, heldState{s, obs}, true)
	return obs, nil
}
