package spec

import (
	"regexp"
	"unicode"
)

// Patterns for values that reach a shell, a hypervisor or a resource name.
// They are deliberately narrow: every character outside them is rejected
// here, with a diagnostic, rather than quoted somewhere later.
var (
	// labNameRe: the lab and pair names become part of namespace and VM names.
	labNameRe = regexp.MustCompile(`^[a-z][a-z0-9-]{0,23}$`)
	// blockNameRe: names of variables, providers, templates and experiments.
	blockNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	// Sysctl names and values are checked by guest.CheckSysctlName and
	// guest.CheckSysctlValue, the rules the guest drivers apply too.
	// Congestion control names and the benchmark tools' sizes are checked
	// by package bench (bench.CheckCongestionControl, bench.LengthRe).
	// nicModelRe: virtio, e1000e, vmxnet3, virtio-net-pci.
	nicModelRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	// offloadKeyRe: host-side offload names (tso4, guest_csum, host-ufo).
	offloadKeyRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	// sshUserRe: a POSIX user name.
	sshUserRe = regexp.MustCompile(`^[a-z_][a-z0-9_.-]{0,31}$`)
	// sourceRe: a template, image or inventory path ("debian-12",
	// "/DC0/vm/freebsd 14.2", "zroot/vm/fbsd@base").
	sourceRe = regexp.MustCompile(`^[A-Za-z0-9._:/@+~-][A-Za-z0-9 ._:/@+~-]{0,254}$`)
)

// hasControl reports whether s holds a control character (newline, NUL, …).
func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}
