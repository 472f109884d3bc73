package libvirt

import (
	"context"
	"errors"
	"fmt"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
)

// stateNames are libvirt's domain states as virsh prints them.
var stateNames = map[golibvirt.DomainState]string{
	golibvirt.DomainNostate:     "in no state",
	golibvirt.DomainRunning:     "running",
	golibvirt.DomainBlocked:     "blocked",
	golibvirt.DomainPaused:      "paused",
	golibvirt.DomainShutdown:    "shutting down",
	golibvirt.DomainShutoff:     "shut off",
	golibvirt.DomainCrashed:     "crashed",
	golibvirt.DomainPmsuspended: "suspended by power management",
}

// stateName is a domain state by name ("shut off"), never a bare number.
func stateName(s int32) string {
	if n, ok := stateNames[golibvirt.DomainState(s)]; ok {
		return n
	}
	return fmt.Sprintf("in unknown state %d", s)
}

// domainDown says why domain name is not running ("domain x shut off",
// "domain x is gone"); "" while it runs (a blocked vCPU counts as running).
// err is a libvirt call that failed: no verdict either way.
func domainDown(l *golibvirt.Libvirt, name string) (down string, err error) {
	dom, err := l.DomainLookupByName(name)
	if isNotFound(err) {
		return "domain " + name + " is gone", nil
	} else if err != nil {
		return "", callErr("DomainLookupByName", name, err)
	}
	st, _, err := l.DomainGetState(dom, 0)
	if isNotFound(err) {
		return "domain " + name + " is gone", nil
	} else if err != nil {
		return "", callErr("DomainGetState", name, err)
	}
	switch golibvirt.DomainState(st) {
	case golibvirt.DomainRunning, golibvirt.DomainBlocked:
		return "", nil
	}
	return "domain " + name + " " + stateName(st), nil
}

// networkDown says why network name cannot carry a lease ("network x is
// gone"); "" while it is up. err is a libvirt call that failed.
func networkDown(l *golibvirt.Libvirt, name string) (down string, err error) {
	n, err := l.NetworkLookupByName(name)
	if isNotFound(err) {
		return "network " + name + " is gone", nil
	} else if err != nil {
		return "", callErr("NetworkLookupByName", name, err)
	}
	active, err := l.NetworkIsActive(n)
	if isNotFound(err) {
		return "network " + name + " is gone", nil
	} else if err != nil {
		return "", callErr("NetworkIsActive", name, err)
	}
	if active != 1 {
		return "network " + name + " is not active", nil
	}
	return "", nil
}

// watchBoot returns a context that ends, with the reason as its cause, as
// soon as domain stops running or network goes away while a guest boots:
// the lease and SSH waits then fail at once instead of at their timeouts.
// stop ends the watch.
func (p *Provider) watchBoot(ctx context.Context, l *golibvirt.Libvirt, domain, network string) (wctx context.Context, stop func()) {
	wctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(p.poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				return
			case <-t.C:
			}
			// A failed call is no verdict: the next tick asks again.
			if down, _ := networkDown(l, network); down != "" {
				cancel(fmt.Errorf("%s while domain %s booted", down, domain))
				return
			}
			if down, _ := domainDown(l, domain); down != "" {
				cancel(errors.New(down + " while it booted"))
				return
			}
		}
	}()
	return wctx, func() { close(done); cancel(nil) }
}

// bootErr is err, or the watch's reason when the watch ended the wait.
func bootErr(ctx, wctx context.Context, err error) error {
	if ctx.Err() == nil && wctx.Err() != nil {
		if cause := context.Cause(wctx); cause != nil && !errors.Is(cause, context.Canceled) {
			return cause
		}
	}
	return err
}

// Alive reports whether a created machine can still take part in a run:
// an error naming the domain and its state ("domain x shut off") when
// libvirt says it does not run, or naming a network its NICs are on when
// that network is gone or inactive ("network lab-x is gone (the link of
// domain y)": a `virsh net-destroy` mid-run, which leaves the guests
// running but cut off). nil otherwise; a failed call is no verdict. The
// engine asks every second while a run goes on and ends the run at once
// when the answer is an error.
func (p *Provider) Alive(ctx context.Context, in machine.Instance) error {
	if in.Kind != "machine" {
		return nil
	}
	l, err := p.conn()
	if err != nil {
		return nil
	}
	if down, _ := domainDown(l, in.Name); down != "" {
		return errors.New(down)
	}
	for _, n := range machineNetworks(in) {
		if down, _ := networkDown(l, n.name); down != "" {
			return fmt.Errorf("%s (the %s of domain %s)", down, n.role, in.Name)
		}
	}
	return nil
}

// machineNetworks are the libvirt networks a machine's NICs are on, as
// its instance records them: the link's (none when the link is a host
// device lab does not own), a router's second link's and the management
// network's.
func machineNetworks(in machine.Instance) []struct{ name, role string } {
	var out []struct{ name, role string }
	if n := in.Attrs[attrNetwork]; n != "" && in.Attrs[attrLinkType] == "" {
		out = append(out, struct{ name, role string }{n, "link"})
	}
	if n := in.Attrs[attrNetwork2]; n != "" {
		out = append(out, struct{ name, role string }{n, "client link"})
	}
	if n := in.Attrs[attrMgmtNetwork]; n != "" {
		out = append(out, struct{ name, role string }{n, "management network"})
	}
	return out
}
