// Package linux is the guest.OS driver for Linux guests. It decides which
// commands apply an experiment's settings (ip, ethtool, sysctl, iptables,
// tc) and reads back what took effect. It never uses a shell: every value
// is validated first and passed as its own argv word.
package linux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Paths and names the driver uses on the guest.
const (
	// LossChain is the iptables chain holding the loss rule. INPUT jumps to
	// it once; each Apply flushes it, so a later cell never inherits an
	// earlier cell's loss.
	LossChain = "LAB-LOSS"

	ccKey        = "net.ipv4.tcp_congestion_control"
	ccAvailable  = "/proc/sys/net/ipv4/tcp_available_congestion_control"
	ipt          = "iptables"
	ip6t         = "ip6tables"
	noFeatureMsg = "Could not change any device features"
)

// Linux is the driver. The zero value is ready to use; it keeps no state
// between calls (everything it needs is read back from the guest).
type Linux struct{}

var _ guest.OS = (*Linux)(nil)

// New returns the Linux driver.
func New() *Linux { return &Linux{} }

// Apply sets s on interface iface: MTU, ring sizes, offloads, congestion
// control, sysctls and packet loss, in that order. Values are validated
// before any command runs; ring sizes are checked against the NIC's
// maximums (`ethtool -g`) before the first change.
//
// An offload the device cannot change is not an error here (ethtool may
// even exit 0 and apply nothing): Observe and guest.Verify report it.
// Congestion control that the namespace may not select (a non-initial
// network namespace may only choose from tcp_allowed_congestion_control)
// falls back to per-socket selection when the algorithm is available:
// Observe then reports CCScope "socket" and the benchmark must select it
// (iperf3 -C).
//
// Loss is ingress drop on iface for the iptables methods (IPv4 only) and
// egress netem on iface for "netem"; a Settings without loss removes any
// loss an earlier Apply installed.
func (l *Linux) Apply(ctx context.Context, t guest.Transport, iface string, s guest.Settings) error {
	return apply(ctx, t, iface, s, nil)
}

// apply is Apply; with held (ApplyChanges) it leaves out each step whose
// setting held's read-back already shows.
func apply(ctx context.Context, t guest.Transport, iface string, s guest.Settings, h *held) error {
	if err := Validate(iface, s); err != nil {
		return fmt.Errorf("%s: %w", t.Name(), err)
	}
	setMTU := s.MTU > 0 && !h.mtu(s)
	var rings []string
	if (s.RxRing > 0 || s.TxRing > 0) && !(h.rings(s) && !setMTU) {
		var err error
		if rings, err = ringsCommand(ctx, t, iface, s.RxRing, s.TxRing); err != nil {
			return err
		}
	}
	if setMTU {
		if _, err := run(ctx, t, "ip", "link", "set", "dev", iface, "mtu", strconv.Itoa(s.MTU)); err != nil {
			return err
		}
	}
	if rings != nil && setMTU {
		// An MTU change may resize a ring (vmxnet3 re-aligns its RX ring
		// to the buffers a frame needs): decide again from what is now.
		var err error
		if rings, err = ringsCommand(ctx, t, iface, s.RxRing, s.TxRing); err != nil {
			return err
		}
	}
	if rings != nil {
		if _, err := run(ctx, t, rings...); err != nil {
			return err
		}
	}
	if offloads := h.offloads(s); len(offloads) > 0 {
		if err := applyOffloads(ctx, t, iface, offloads); err != nil {
			return err
		}
	}
	if s.CongestionControl != "" && !h.cc(s) {
		if err := applyCC(ctx, t, s.CongestionControl); err != nil {
			return err
		}
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		if h.sysctl(k, s.Sysctl[k]) {
			continue
		}
		if _, err := run(ctx, t, "sysctl", "-w", k+"="+s.Sysctl[k]); err != nil {
			return err
		}
	}
	if !h.noLoss(s) {
		if err := applyLoss(ctx, t, iface, s.Loss, s.IPv6); err != nil {
			return err
		}
	}
	// A ruleset is always (re)applied: Observe lists lab's table only when
	// a ruleset is asked, and compares no ruleset's text. No ruleset after
	// a held apply that asked none either: that apply deleted lab's table,
	// which only lab makes, so there is nothing to delete again.
	if h.noFirewall(s) {
		return nil
	}
	return applyFirewall(ctx, t, s.Firewall)
}

// applyOffloads runs one `ethtool -K IFACE lro on gro off …`.
func applyOffloads(ctx context.Context, t guest.Transport, iface string, offloads map[string]bool) error {
	argv := []string{"ethtool", "-K", iface}
	for _, f := range Features {
		if on, ok := offloads[f.Name]; ok {
			argv = append(argv, f.Name, onOff(on))
		}
	}
	_, err := run(ctx, t, argv...)
	if ce := (*guest.CommandError)(nil); errors.As(err, &ce) && strings.Contains(ce.Stderr, noFeatureMsg) {
		return nil // fixed features: observed and reported by Verify
	}
	return err
}

// applyCC selects the default congestion control algorithm, loading its
// module when it is not yet available, and falls back to per-socket scope
// when the namespace may not select it.
func applyCC(ctx context.Context, t guest.Transport, cc string) error {
	avail, err := availableCC(ctx, t)
	if err != nil {
		return err
	}
	if !contains(avail, cc) {
		_, _ = run(ctx, t, "modprobe", "tcp_"+cc) // may be built in or absent: the re-read decides
		if avail, err = availableCC(ctx, t); err != nil {
			return err
		}
		if !contains(avail, cc) {
			return fmt.Errorf("%s: congestion control %s is not available (available: %s)", t.Name(), cc, strings.Join(avail, " "))
		}
	}
	_, err = run(ctx, t, "sysctl", "-w", ccKey+"="+cc)
	if ce := (*guest.CommandError)(nil); errors.As(err, &ce) && strings.Contains(ce.Stderr, "Operation not permitted") {
		return nil // per-socket scope: Observe reports it
	}
	return err
}

func availableCC(ctx context.Context, t guest.Transport) ([]string, error) {
	out, err := run(ctx, t, "cat", ccAvailable)
	return strings.Fields(out), err
}

// run runs argv on t and returns its stdout.
func run(ctx context.Context, t guest.Transport, argv ...string) (string, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: argv})
	return string(res.Stdout), err
}

// missing reports whether err says the thing acted on does not exist (an
// iptables chain, or the command itself): nothing to remove then.
func missing(err error) bool {
	var ce *guest.CommandError
	if !errors.As(err, &ce) {
		return false
	}
	if ce.ExitCode == 127 {
		return true
	}
	for _, s := range []string{"No chain", "does not exist", "not found", "No such file", "incompatible"} {
		if strings.Contains(ce.Stderr, s) {
			return true
		}
	}
	return false
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
