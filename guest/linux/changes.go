package linux

import (
	"context"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// ApplyChanges is Apply on an interface whose state is known: prev are the
// settings the last Apply (or ApplyChanges) set on it and now is what
// Observe read back right after, with guest.Verify finding nothing. Only
// the steps whose setting now does not already show run: an unchanged MTU,
// offload, ring size, congestion control or sysctl is not set again, and
// loss is not cleared again when now shows none (read from the same
// family's chain as this run's: over IPv6 both families are flushed, as by
// Apply). The firewall step runs whenever prev or s asks a ruleset, as
// Observe does not read back a ruleset's text; when neither does, the
// table prev's apply deleted is still gone (only lab makes it). The caller
// must Observe and Verify afterwards as after Apply, and fall back to
// Apply when anything is amiss: now may be stale.
func (l *Linux) ApplyChanges(ctx context.Context, t guest.Transport, iface string, prev guest.Settings, now guest.Observed, s guest.Settings) error {
	return apply(ctx, t, iface, s, &held{prev: prev, now: now})
}

// held is what ApplyChanges knows holds on the interface; a nil *held
// knows nothing (Apply), and every method then says "apply it".
type held struct {
	prev guest.Settings
	now  guest.Observed
}

func (h *held) mtu(s guest.Settings) bool { return h != nil && h.now.MTU == s.MTU }

// rings: both asked ring sizes are read back as they are.
func (h *held) rings(s guest.Settings) bool {
	if h == nil || h.now.Rings == nil {
		return false
	}
	r := h.now.Rings
	return (s.RxRing == 0 || r.RX == s.RxRing) && (s.TxRing == 0 || r.TX == s.TxRing)
}

// offloads are the asked offloads whose read-back state differs (all of
// them without a read-back).
func (h *held) offloads(s guest.Settings) map[string]bool {
	if h == nil {
		return s.Offloads
	}
	out := map[string]bool{}
	for name, on := range s.Offloads {
		if got, ok := h.now.Offloads[name]; !ok || firstWord(got) != onOff(on) {
			out[name] = on
		}
	}
	return out
}

// cc: the algorithm in effect is the asked one, for the namespace or (when
// the namespace may not choose it) per socket.
func (h *held) cc(s guest.Settings) bool {
	return h != nil && h.now.CongestionControl == s.CongestionControl
}

func (h *held) sysctl(key, value string) bool {
	if h == nil {
		return false
	}
	got, ok := h.now.Sysctl[key]
	return ok && strings.Join(strings.Fields(got), " ") == strings.Join(strings.Fields(value), " ")
}

// noLoss: no loss is asked and the read-back found no loss rule, in the
// IPv4 chain and the netem qdisc Observe reads when neither run is over
// IPv6 (a run over IPv6 reads only the IPv6 chain, and flushes both).
func (h *held) noLoss(s guest.Settings) bool {
	return h != nil && (s.Loss == nil || s.Loss.Percent == 0) && h.now.Loss == "" && !s.IPv6 && !h.prev.IPv6
}

// noFirewall: neither the held apply nor this one asks a ruleset, so lab's
// table (FirewallTable), deleted by the held apply, is still absent.
func (h *held) noFirewall(s guest.Settings) bool {
	return h != nil && strings.TrimSpace(s.Firewall) == "" && strings.TrimSpace(h.prev.Firewall) == ""
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
