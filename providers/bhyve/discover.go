package bhyve

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/lab-bench/lab/machine"
)

// waitAddress finds a booting machine's address by its MAC — in the
// host's ARP table (arp) or the DHCP server's leases (dhcp) — or takes it
// from the provider block (static). While it waits it checks that the VM
// is still running; a VM that stopped is an error carrying the end of its
// log.
func (p *Provider) waitAddress(ctx context.Context, m machine.Machine, vm string) (string, error) {
	if p.cfg.AddressDiscovery == "static" {
		key := m.Pair + "." + m.Role
		if a := p.cfg.Addresses[key]; a != "" {
			return a, nil
		}
		return "", fmt.Errorf("address_discovery is static but addresses has no %q", key)
	}
	mac := MAC(vm)
	deadline := time.Now().Add(p.cfg.bootTimeout())
	for {
		if err := p.checkRunning(ctx, vm); err != nil {
			return "", err
		}
		addr, err := p.lookup(ctx, mac)
		if err != nil || addr != "" {
			return addr, err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no address for MAC %s after %v (%s discovery: does the guest get an address and talk on the switch?)",
				mac, p.cfg.bootTimeout(), p.cfg.AddressDiscovery)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(p.poll):
		}
	}
}

// lookup finds mac's address once ("" when not seen yet).
func (p *Provider) lookup(ctx context.Context, mac string) (string, error) {
	if p.cfg.AddressDiscovery == "dhcp" {
		out, err := p.run(ctx, "cat", p.cfg.LeasesFile)
		if exit(err) == 1 { // no leases file yet
			return "", nil
		}
		return LeaseAddress(out, mac), err
	}
	out, err := p.run(ctx, "arp", "-an")
	return ARPAddress(out, mac), err
}

// checkRunning fails when the VM is no longer running.
func (p *Provider) checkRunning(ctx context.Context, vm string) error {
	if p.cfg.Backend == BackendRaw {
		if _, err := p.run(ctx, "pgrep", "-F", pidFile(vm)); exit(err) == 1 {
			tail, _ := p.run(ctx, "tail", "-n", "20", logFile(vm))
			return fmt.Errorf("bhyve exited: %s", oneLine(tail))
		} else if err != nil {
			return err
		}
		return nil
	}
	st, err := p.vmState(ctx, vm)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(st, "Running") {
		return fmt.Errorf("VM is %q, not running: %s", st, oneLine(p.vmLog(ctx, vm)))
	}
	return nil
}

// ARPAddress finds mac in `arp -an` output ("? (198.18.0.12) at
// 58:9c:fc:0e:8c:fb on vm-l1a2b3c4d expires in 1187 seconds [ethernet]").
func ARPAddress(out, mac string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[2] == "at" && strings.EqualFold(f[3], mac) {
			ip := strings.Trim(f[1], "()")
			if net.ParseIP(ip) != nil {
				return ip
			}
		}
	}
	return ""
}

// LeaseAddress finds mac in a dnsmasq leases file ("1718990000
// 58:9c:fc:0e:8c:fb 198.18.0.12 fbsd-s 01:58:9c:fc:0e:8c:fb"); the last
// lease wins.
func LeaseAddress(out, mac string) string {
	addr := ""
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && strings.EqualFold(f[1], mac) && net.ParseIP(f[2]) != nil {
			addr = f[2]
		}
	}
	return addr
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(no log output)"
	}
	return truncate(s, 400)
}
