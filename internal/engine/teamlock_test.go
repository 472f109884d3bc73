package engine

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// teamProvider is the fake back end with footprints that also names them
// for a team (a remote hypervisor: not on this host).
type teamProvider struct {
	*footprintProvider
	team string
}

func (t *teamProvider) TeamFootprint(context.Context, machine.Instance) (providers.Footprint, error) {
	return providers.FootprintOf(t.team), nil
}

// thisHostProvider is the fake back end on this host (as local).
type thisHostProvider struct{ *footprintProvider }

func (thisHostProvider) Capabilities() providers.Capabilities {
	return providers.Capabilities{GuestOffloads: true, LinkMTU: true, VCPU: true, Memory: true, OnThisHost: true}
}

// TestHostLockScope: every run takes the benchmark lock (Engine.HostLock)
// — a run on a remote hypervisor too, which before took none — with its
// scope: on this host or not, and its footprint as a team names it (the
// back end's TeamFootprint, else its Footprint, this host's resource
// for a back end on it); a machine no back end can place is everything,
// with the reason.
func TestHostLockScope(t *testing.T) {
	both := map[string]string{"pair.p.server": "h0", "pair.p.client": "h0"}
	tests := []struct {
		name     string
		prov     func(*footprintProvider) providers.Provider
		hosts    map[string]string
		thisHost bool
		team     string
		err      string
	}{
		{name: "remote hypervisor naming its host", hosts: both,
			prov: func(f *footprintProvider) providers.Provider { return &teamProvider{f, "libvirt host kvm1"} },
			team: "libvirt host kvm1"},
		{name: "a back end with Footprint only", hosts: both,
			prov: func(f *footprintProvider) providers.Provider { return f }, team: "host h0"},
		{name: "this host", hosts: map[string]string{},
			prov:     func(f *footprintProvider) providers.Provider { return thisHostProvider{f} },
			thisHost: true, err: "names no footprint"},
		{name: "this host, with its footprint", hosts: both,
			prov:     func(f *footprintProvider) providers.Provider { return thisHostProvider{f} },
			thisHost: true, team: "host h0, " + providers.ThisMachine},
		{name: "a machine no back end can place", hosts: map[string]string{"pair.p.server": "h0"},
			prov: func(f *footprintProvider) providers.Provider { return f }, team: "everything", err: "pair.p.client: its back end names no footprint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fp := &footprintProvider{fakeProvider: newFake(), hosts: tc.hosts}
			e, _, _ := newEngine(fp.fakeProvider, fakeOS{}, fakeRunner{})
			e.Providers["fake.x"] = tc.prov(fp)
			var mu sync.Mutex
			var got []string
			e.HostLock = func(ctx context.Context, scope LockScope) (func(), error) {
				team, err := scope.Team(ctx)
				s := team.String()
				if err != nil {
					s += " (" + err.Error() + ")"
				}
				mu.Lock()
				defer mu.Unlock()
				if scope.ThisHost != tc.thisHost {
					t.Errorf("scope on this host %v, want %v", scope.ThisHost, tc.thisHost)
				}
				got = append(got, s)
				return func() {}, nil
			}
			if _, err := e.Apply(context.Background(), context.Background(), pairsPlan([]string{"p"}, 2)); err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("benchmark lock taken %d times for 2 runs (%v)", len(got), got)
			}
			for _, g := range got {
				if tc.team != "" && !strings.HasPrefix(g, tc.team) || tc.err != "" && !strings.Contains(g, tc.err) || tc.err == "" && strings.Contains(g, "(") {
					t.Errorf("team footprint %q, want %q with error %q", g, tc.team, tc.err)
				}
			}
		})
	}
}
