package guest

import (
	"fmt"
	"strconv"
	"strings"
)

// Verify compares what was asked with what a guest reports and returns one
// message per requested setting that did not take effect, in a stable
// order (mtu, offloads, ring sizes, congestion control, sysctls, loss). The caller
// decides whether they are errors (Strict) or warnings.
func Verify(s Settings, o Observed) []string {
	var msgs []string
	if s.MTU > 0 && o.MTU != s.MTU {
		msgs = append(msgs, fmt.Sprintf("mtu: asked %d, guest reports %d", s.MTU, o.MTU))
	}
	for _, name := range SortedKeys(s.Offloads) {
		want := onOff(s.Offloads[name])
		got, ok := o.Offloads[name]
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("%s: asked %s, guest does not report it", name, want))
		case firstWord(got) != want:
			msgs = append(msgs, fmt.Sprintf("%s: asked %s, guest reports %q", name, want, got))
		}
	}
	for _, r := range []struct {
		name      string
		want, got int
	}{{"rx_ring", s.RxRing, ringOf(o.Rings, true)}, {"tx_ring", s.TxRing, ringOf(o.Rings, false)}} {
		switch {
		case r.want == 0:
		case o.Rings == nil:
			msgs = append(msgs, fmt.Sprintf("%s: asked %d, guest does not report ring sizes", r.name, r.want))
		case r.got != r.want:
			msgs = append(msgs, fmt.Sprintf("%s: asked %d, guest reports %d", r.name, r.want, r.got))
		}
	}
	if cc := s.CongestionControl; cc != "" && o.CongestionControl != cc && o.CCScope != "socket" {
		msgs = append(msgs, fmt.Sprintf("congestion control: asked %s, guest reports %q", cc, o.CongestionControl))
	}
	for _, k := range SortedKeys(s.Sysctl) {
		want := strings.Join(strings.Fields(s.Sysctl[k]), " ")
		got, ok := o.Sysctl[k]
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("sysctl %s: asked %q, guest does not report it", k, want))
		case strings.Join(strings.Fields(got), " ") != want:
			msgs = append(msgs, fmt.Sprintf("sysctl %s: asked %q, guest reports %q", k, want, got))
		}
	}
	if s.Firewall != "" && o.Firewall == "" {
		msgs = append(msgs, "firewall: asked for a ruleset (nftables: the lab_fw table; pf: pf enabled with lab's ruleset), guest lists none")
	}
	switch {
	case s.Loss != nil && s.Loss.Percent > 0 && o.Loss == "":
		msgs = append(msgs, fmt.Sprintf("loss: asked %s%% (%s), guest has no loss rule",
			strconv.FormatFloat(s.Loss.Percent, 'f', -1, 64), s.Loss.Method))
	case (s.Loss == nil || s.Loss.Percent == 0) && o.Loss != "":
		msgs = append(msgs, fmt.Sprintf("loss: asked none, guest has %q", o.Loss))
	}
	return msgs
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// ringOf is the current receive (rx) or transmit ring size, 0 when r is nil.
func ringOf(r *Rings, rx bool) int {
	switch {
	case r == nil:
		return 0
	case rx:
		return r.RX
	}
	return r.TX
}
