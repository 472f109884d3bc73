package bhyve

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/providers"
)

// Preflighter is what the engine (or the CLI, before apply) can ask of a
// provider that knows some settings cannot work on its hardware: check a
// group's runs before anything is created. The bhyve provider implements
// it; the engine does not call it yet (see the package README section).
type Preflighter interface {
	CheckGroup(g *plan.Group) error
}

var _ Preflighter = (*Provider)(nil)

// offloadToggles are the guest settings a tap backend cannot honour.
var offloadToggles = []string{"lro", "tso", "rx", "tx", "gro", "gso"}

// TapOffloadError is a plan that toggles NIC offloads on a tap-backed
// virtio-net, where they are silent no-ops.
type TapOffloadError struct {
	Pair     string
	Problems []string // "server: lro = true (cell lro=true)"
}

func (e *TapOffloadError) Error() string {
	return fmt.Sprintf("pair %s: %s: bhyve's tap backend advertises no offloads to the guest's virtio-net, "+
		"so these toggles would be silent no-ops (the guest reports them off [fixed]). "+
		`Use network_backend = "vale" (netmap/VALE, with backend = "vm-bhyve"), drop the toggles, `+
		"or set strict = false in the bhyve provider block to run anyway and record them as warnings",
		e.Pair, strings.Join(e.Problems, "; "))
}

// CheckGroup refuses a group whose runs toggle offloads (lro, tso, rx,
// tx — and gro/gso, which are software on Linux but still ride on the
// NIC's offered features) on a tap backend while the provider is strict.
// Each problem names the end, the setting and the cell.
func (p *Provider) CheckGroup(g *plan.Group) error {
	if p.cfg.NetworkBackend != "tap" || !p.cfg.strict() {
		return nil
	}
	seen := map[string]bool{}
	var problems []string
	for _, r := range g.Runs {
		for _, side := range []struct {
			role string
			s    guest.Settings
		}{{"server", r.Spec.Server}, {"client", r.Spec.Client}} {
			for _, name := range offloadsAsked(side.s) {
				msg := fmt.Sprintf("%s: %s = %v", side.role, name, side.s.Offloads[name])
				if r.CellKey != "" {
					msg += " (cell " + r.CellKey + ")"
				}
				if !seen[msg] {
					seen[msg] = true
					problems = append(problems, msg)
				}
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &TapOffloadError{Pair: g.Pair, Problems: problems}
}

// CheckPlan runs CheckGroup on every group of p that this provider
// (provider key) makes.
func (p *Provider) CheckPlan(pl *plan.Plan, providerKey string) error {
	var errs []error
	for _, g := range pl.Groups {
		if g.ProviderKey == providerKey {
			errs = append(errs, p.CheckGroup(g))
		}
	}
	return errors.Join(errs...)
}

// offloadsAsked lists the offload toggles s sets, sorted. Only "on"
// matters: a tap backend has every offload off already, so asking for off
// is what the guest gets.
func offloadsAsked(s guest.Settings) []string {
	var out []string
	for _, n := range offloadToggles {
		if on, ok := s.Offloads[n]; ok && on {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// checkMachine refuses host-side NIC offload bits (nic { host = {…} })
// that a tap backend cannot provide, at Create, when strict.
func (p *Provider) checkMachine(m providers.Machine) error {
	if p.cfg.NetworkBackend != "tap" || !p.cfg.strict() {
		return nil
	}
	var asked []string
	for _, k := range guest.SortedKeys(m.NIC.Host) {
		if m.NIC.Host[k] {
			asked = append(asked, "host "+k+" = true")
		}
	}
	if m.NIC.Model != "" && m.NIC.Model != "virtio-net" && m.NIC.Model != "virtio" {
		return fmt.Errorf("NIC model %q: this provider gives guests virtio-net only", m.NIC.Model)
	}
	if len(asked) == 0 {
		return nil
	}
	return &TapOffloadError{Pair: m.Pair, Problems: []string{m.Role + ": " + strings.Join(asked, ", ")}}
}
