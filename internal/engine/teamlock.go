package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// LockScope is what one run's benchmark lock guards (Engine.HostLock).
type LockScope struct {
	// ThisHost: one of the run's machines runs on this host
	// (Capabilities.OnThisHost), whose CPUs the host's file lock guards.
	ThisHost bool
	// Team names the run's footprint for a team's shared benchmark lock:
	// the union of its machines' TeamFootprint (else Footprint), with
	// providers.ThisMachine for this host. It asks the back ends (a
	// vCenter round trip), so it is called only when a team lock is
	// configured. A machine its back end cannot name makes it the zero
	// Footprint (everything), with the error saying why.
	Team func(ctx context.Context) (providers.Footprint, error)
}

// teamFootprinter is a provider that names a machine's footprint as the
// runners of a team name it, each computing it on its own (for example
// the ESXi host a VM runs on, by vCenter and moref). Footprint serves a
// provider without it.
type teamFootprinter interface {
	TeamFootprint(ctx context.Context, in machine.Instance) (providers.Footprint, error)
}

// lockScope is the scope of the benchmark lock of a run on sessions.
func lockScope(sessions []*session) LockScope {
	var ends []end
	for _, s := range sessions {
		ends = append(ends, s.ends()...)
	}
	sc := LockScope{Team: func(ctx context.Context) (providers.Footprint, error) { return teamFootprint(ctx, ends) }}
	for _, s := range sessions {
		sc.ThisHost = sc.ThisHost || s.onThisHost()
	}
	return sc
}

// teamFootprint is the union of ends' team footprints; everything, with
// the errors, when one of them cannot be named.
func teamFootprint(ctx context.Context, ends []end) (providers.Footprint, error) {
	var rs []string
	var errs []error
	for _, e := range ends {
		f, err := endTeamFootprint(ctx, e)
		if err == nil && f.Everything() {
			err = fmt.Errorf("%s: its back end names no footprint", e.in.Address)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if e.prov.Capabilities().OnThisHost {
			f = f.Union(providers.FootprintOf(providers.ThisMachine))
		}
		rs = append(rs, f.Resources...)
	}
	if len(errs) > 0 {
		return providers.Footprint{}, errors.Join(errs...)
	}
	return providers.FootprintOf(rs...), nil
}

// endTeamFootprint asks one machine's back end.
func endTeamFootprint(ctx context.Context, e end) (providers.Footprint, error) {
	if t, ok := e.prov.(teamFootprinter); ok {
		return t.TeamFootprint(ctx, e.in)
	}
	if f, ok := e.prov.(footprinter); ok {
		return f.Footprint(ctx, e.in)
	}
	return providers.Footprint{}, nil
}
