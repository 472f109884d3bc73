package linux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Ring size bounds a spec may ask for (descriptors per ring). The real
// upper bound is the NIC's own maximum, read with `ethtool -g` before any
// change.
const (
	MinRing = 1
	MaxRing = 65536
)

// ParseRings reads `ethtool -g IFACE` output. ethtool prints two sections
// with the same labels (netlink/rings.c rings_reply_cb, and the ioctl
// fallback dump_ring in ethtool.c):
//
//	Ring parameters for eth0:
//	Pre-set maximums:
//	RX:		256
//	RX Mini:	n/a
//	RX Jumbo:	n/a
//	TX:		256
//	Current hardware settings:
//	RX:		256
//	…
//
// "n/a" (show_u32 with the attribute absent) is read as 0. Only the "RX"
// and "TX" lines count ("RX Mini", "RX Jumbo", "RX Buf Len" are other
// parameters). The current section is required.
func ParseRings(out string) (guest.Rings, error) {
	var r guest.Rings
	var rx, tx *int
	seen := false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		switch strings.TrimSpace(line) {
		case "Pre-set maximums:":
			rx, tx = &r.RXMax, &r.TXMax
			continue
		case "Current hardware settings:":
			rx, tx, seen = &r.RX, &r.TX, true
			continue
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok || rx == nil {
			continue
		}
		var dst *int
		switch strings.TrimSpace(name) {
		case "RX":
			dst = rx
		case "TX":
			dst = tx
		default:
			continue
		}
		val = strings.TrimSpace(val)
		if val == "n/a" {
			*dst = 0
			continue
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return guest.Rings{}, fmt.Errorf("ring size %q of %s is not a number", val, strings.TrimSpace(name))
		}
		*dst = n
	}
	if !seen {
		return guest.Rings{}, errors.New(`no "Current hardware settings:" section`)
	}
	return r, nil
}

// readRings runs `ethtool -g IFACE` and parses it. A driver without ring
// parameters (veth, loopback: "netlink error: Operation not supported")
// is said so, with the guest, interface and command.
func readRings(ctx context.Context, t guest.Transport, iface string) (guest.Rings, error) {
	cmd := "ethtool -g " + iface
	out, err := run(ctx, t, "ethtool", "-g", iface)
	if ce := (*guest.CommandError)(nil); errors.As(err, &ce) && strings.Contains(ce.Stderr, "Operation not supported") {
		return guest.Rings{}, fmt.Errorf("%s: interface %s has no ring sizes to read or set (rx_ring/tx_ring): `%s` says %q — its driver (veth and loopback among them) offers no ring parameters",
			t.Name(), iface, cmd, strings.TrimSpace(ce.Stderr))
	}
	if err != nil {
		return guest.Rings{}, err
	}
	r, err := ParseRings(out)
	if err != nil {
		return guest.Rings{}, fmt.Errorf("%s: %s: %w", t.Name(), cmd, err)
	}
	return r, nil
}

// ringsCommand is the `ethtool -G IFACE rx N tx N` that sets the receive
// and transmit ring sizes asked (0: leave it), nil when there is nothing
// to change. It reads the current sizes and maximums first: a size above
// the maximum is refused naming the guest, interface and maximum, and a
// ring already at the asked size is left out (changing a ring resets the
// NIC on most drivers). Apply calls it before changing anything, so a
// refused ring size leaves the guest as it was.
func ringsCommand(ctx context.Context, t guest.Transport, iface string, rx, tx int) ([]string, error) {
	cur, err := readRings(ctx, t, iface)
	if err != nil {
		return nil, err
	}
	argv := []string{"ethtool", "-G", iface}
	for _, r := range []struct {
		name, word     string
		want, now, max int
	}{{"rx_ring", "rx", rx, cur.RX, cur.RXMax}, {"tx_ring", "tx", tx, cur.TX, cur.TXMax}} {
		switch {
		case r.want == 0 || r.want == r.now:
		case r.max == 0:
			return nil, fmt.Errorf("%s: %s %d: interface %s reports no maximum for its %s ring (ethtool -g %s prints n/a), so it cannot be set",
				t.Name(), r.name, r.want, iface, strings.ToUpper(r.word), iface)
		case r.want > r.max:
			return nil, fmt.Errorf("%s: %s %d is above the maximum of interface %s: %d (ethtool -g %s, Pre-set maximums)",
				t.Name(), r.name, r.want, iface, r.max, iface)
		default:
			argv = append(argv, r.word, strconv.Itoa(r.want))
		}
	}
	if len(argv) == 3 {
		return nil, nil
	}
	return argv, nil
}
