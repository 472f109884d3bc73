package bhyve

import (
	"slices"
	"testing"

	"github.com/lab-bench/lab/machine"
)

// TestGuestOSDefaults: what the guest OS says of the NIC at slot 5 and of
// booting (guest.Driver): Linux calls it enp0s5 and boots from the UEFI
// firmware, FreeBSD calls it vtnet0 and is loaded by bhyveload (which
// bhyve then runs without -l bootrom).
func TestGuestOSDefaults(t *testing.T) {
	var c Config
	if got := c.guestIface("linux"); got != "enp0s5" {
		t.Errorf("linux guest NIC = %q, want enp0s5", got)
	}
	if got := c.guestIface("freebsd"); got != "vtnet0" {
		t.Errorf("freebsd guest NIC = %q, want vtnet0", got)
	}
	p := &Provider{cfg: Config{Firmware: "/usr/local/share/uefi-firmware/BHYVE_UEFI.fd"}}
	for os, uefi := range map[string]bool{"linux": true, "freebsd": false} {
		m := machine.Machine{Template: machine.Template{OS: os}, Link: machine.Instance{Attrs: map[string]string{}}}
		in := machine.Instance{Attrs: map[string]string{"tap": "tap0", "mac": "58:9c:fc:00:00:01", "vm": "lab-t"}}
		argv := p.bhyveArgv(m, in, "/dev/zvol/z/lab-t", "512M")
		if slices.Contains(argv, "bootrom,"+p.cfg.Firmware) != uefi {
			t.Errorf("%s: bhyve %q, want UEFI firmware %v", os, argv, uefi)
		}
	}
}
