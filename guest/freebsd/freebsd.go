// Package freebsd is the guest.OS driver for FreeBSD guests. It decides
// which commands apply an experiment's settings — ifconfig for MTU and
// offloads, sysctl (and kldload) for congestion control and tunables,
// ipfw + dummynet for packet loss, pf for a firewall (pf.go) — and reads
// back what took effect.
// Every value is validated before it becomes an argv word; no shell is
// involved beyond the SSH transport's word-by-word quoting.
//
// What FreeBSD cannot do at runtime is reported, never faked: an offload a
// NIC does not offer (a bhyve tap-backed vtnet offers none) is observed as
// "off [fixed]" and guest.Verify turns it into an error (or, with strict =
// false, a warning). Offered offloads change at runtime (on vtnet too,
// vtnet_ioctl_ifcap in sys/dev/virtio/network/if_vtnet.c); loader
// tunables (see Tunables) only remove an offload from what is offered.
package freebsd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Sysctl names the driver reads and writes.
const (
	ccKey       = "net.inet.tcp.cc.algorithm"
	ccAvailable = "net.inet.tcp.cc.available"
)

// FreeBSD is the driver. The zero value is ready to use; it keeps no state
// between calls (everything it needs is read back from the guest).
type FreeBSD struct{}

var _ guest.OS = (*FreeBSD)(nil)

// New returns the FreeBSD driver.
func New() *FreeBSD { return &FreeBSD{} }

// Apply sets s on interface iface: MTU and offloads (one ifconfig
// command), congestion control, sysctls, packet loss and the pf firewall,
// in that order. Everything is validated before the first command runs;
// settings FreeBSD has no equivalent for (gro, gso, nth or netem loss)
// are refused with an error naming the guest.
//
// ifconfig silently ignores a capability the NIC does not have: Observe
// reports it and guest.Verify turns it into a message.
func (f *FreeBSD) Apply(ctx context.Context, t guest.Transport, iface string, s guest.Settings) error {
	if err := Validate(iface, s); err != nil {
		return fmt.Errorf("%s: %w", t.Name(), err)
	}
	if argv := ifconfigArgv(iface, s); argv != nil {
		if _, err := run(ctx, t, argv...); err != nil {
			return err
		}
	}
	if s.CongestionControl != "" {
		if err := applyCC(ctx, t, s.CongestionControl); err != nil {
			return err
		}
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		if _, err := run(ctx, t, "sysctl", k+"="+s.Sysctl[k]); err != nil {
			return err
		}
	}
	if err := applyLoss(ctx, t, iface, s.Loss, s.IPv6); err != nil {
		return err
	}
	return applyPF(ctx, t, s.Firewall)
}

// ifconfigArgv is `ifconfig IFACE [mtu N] [-]lro [-]tso [-]rxcsum
// [-]txcsum`, nil when s changes neither MTU nor offloads.
func ifconfigArgv(iface string, s guest.Settings) []string {
	argv := []string{"ifconfig", iface}
	if s.MTU > 0 {
		argv = append(argv, "mtu", strconv.Itoa(s.MTU))
	}
	for _, o := range Offloads {
		if on, ok := s.Offloads[o.Name]; ok {
			if on {
				argv = append(argv, o.Param)
			} else {
				argv = append(argv, "-"+o.Param)
			}
		}
	}
	if len(argv) == 2 {
		return nil
	}
	return argv
}

// applyCC makes algorithm cc the system default: when it is not in
// net.inet.tcp.cc.available, its module (cc_<name>) is loaded first. A
// kernel without mod_cc(4) (before FreeBSD 9.0, see noModCC) has one
// algorithm: newreno is then already in effect, any other is refused.
func applyCC(ctx context.Context, t guest.Transport, cc string) error {
	avail, err := availableCC(ctx, t)
	if noModCC(err) {
		if cc == OnlyCC {
			return nil
		}
		return fmt.Errorf("%s: congestion control %s: this kernel has no mod_cc(4) framework (%s is an unknown oid; it appeared in FreeBSD 9.0), so its only algorithm is %s",
			t.Name(), cc, ccAvailable, OnlyCC)
	}
	if err != nil {
		return err
	}
	if !contains(avail, cc) {
		if _, err := run(ctx, t, "kldload", "-n", "cc_"+cc); err != nil {
			return fmt.Errorf("%s: congestion control %s is not available (available: %s) and its module cc_%s did not load: %w",
				t.Name(), cc, strings.Join(avail, " "), cc, err)
		}
		if avail, err = availableCC(ctx, t); err != nil {
			return err
		}
		if !contains(avail, cc) {
			return fmt.Errorf("%s: congestion control %s is not available after kldload cc_%s (available: %s)", t.Name(), cc, cc, strings.Join(avail, " "))
		}
	}
	_, err = run(ctx, t, "sysctl", ccKey+"="+cc)
	return err
}

// OnlyCC is the congestion control algorithm of a FreeBSD kernel without
// mod_cc(4): NewReno, built into tcp_input.c before 9.0.
const OnlyCC = "newreno"

// noModCC says whether err is sysctl(8)'s answer to a net.inet.tcp.cc.*
// read on a kernel without mod_cc(4), which first appeared in FreeBSD 9.0
// (mod_cc(4) HISTORY): name2oid fails and parse() prints "sysctl: unknown
// oid 'NAME'" and exits 1 (sbin/sysctl/sysctl.c, errx(1, "unknown oid
// '%s'", bufp) in 7.x and 8.x; warnx and return 1 in later releases).
func noModCC(err error) bool {
	var ce *guest.CommandError
	return errors.As(err, &ce) && ce.Err == nil && ce.ExitCode == 1 && strings.Contains(ce.Stderr, "unknown oid")
}

// readCC reads the system's congestion control algorithm; on a kernel
// without mod_cc(4) it is OnlyCC.
func readCC(ctx context.Context, t guest.Transport) (string, error) {
	out, err := run(ctx, t, "sysctl", "-n", ccKey)
	if noModCC(err) {
		return OnlyCC, nil
	}
	return strings.TrimSpace(out), err
}

// availableCC lists net.inet.tcp.cc.available.
func availableCC(ctx context.Context, t guest.Transport) ([]string, error) {
	out, err := run(ctx, t, "sysctl", "-n", ccAvailable)
	return ParseCCAvailable(out), err
}

// ParseCCAvailable reads net.inet.tcp.cc.available in both shapes FreeBSD
// has printed: a comma-separated list ("newreno, cubic", up to 12) and the
// table of FreeBSD 13 and later ("CCmod  D PCB count" header, one module
// per line, "*" marking the default).
func ParseCCAvailable(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		for _, part := range strings.Split(line, ",") {
			f := strings.Fields(part)
			if len(f) == 0 || f[0] == "CCmod" {
				continue
			}
			names = append(names, f[0])
		}
	}
	return names
}

// run runs argv on t and returns its stdout.
func run(ctx context.Context, t guest.Transport, argv ...string) (string, error) {
	res, err := t.Run(ctx, guest.Cmd{Argv: argv})
	return string(res.Stdout), err
}

// exitStatus is the exit status of a command that ran and failed, -1 for
// any other error (connection lost, cancelled).
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ce *guest.CommandError
	if errors.As(err, &ce) && ce.Err == nil {
		return ce.ExitCode
	}
	return -1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
