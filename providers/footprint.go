package providers

import (
	"slices"
	"strings"
)

// Footprint is the physical resources a machine's benchmark traffic loads:
// the hypervisor host it runs on, every switch carrying that traffic past
// one host, the physical segment between two hosts. Two runs whose
// footprints do not meet share nothing a benchmark measures, so the engine
// may run them at the same time (engine.Engine.RunsAtOnce).
//
// Each resource is named so that two names never mean one resource across
// back ends: its kind and an identity that does not depend on what the spec
// calls it ("vsphere host vc.example.com/host-21", "ssh host
// SHA256:…", "host this-machine"). The zero Footprint, with no resources,
// is unknown: it is everything, and meets every footprint — what a back end
// that cannot prove where a machine runs answers.
type Footprint struct {
	Resources []string
}

// FootprintOf is the footprint of the named resources, sorted and without
// duplicates.
func FootprintOf(resources ...string) Footprint {
	rs := slices.Clone(resources)
	slices.Sort(rs)
	return Footprint{Resources: slices.Compact(rs)}
}

// ThisMachine is the resource of the machine lab runs on: the local back
// end's namespaces, a libvirt on qemu:///system and a borrowed host reached
// over loopback all load it.
const ThisMachine = "host this-machine"

// Everything reports whether f is unknown (everything).
func (f Footprint) Everything() bool { return len(f.Resources) == 0 }

// Union is every resource of f and g; everything when either is.
func (f Footprint) Union(g Footprint) Footprint {
	if f.Everything() || g.Everything() {
		return Footprint{}
	}
	return FootprintOf(append(slices.Clone(f.Resources), g.Resources...)...)
}

// Meets reports whether f and g share a resource; everything meets every
// footprint.
func (f Footprint) Meets(g Footprint) bool {
	if f.Everything() || g.Everything() {
		return true
	}
	for _, r := range f.Resources {
		if slices.Contains(g.Resources, r) {
			return true
		}
	}
	return false
}

// String is the resources joined by ", ", or "everything".
func (f Footprint) String() string {
	if f.Everything() {
		return "everything"
	}
	return strings.Join(f.Resources, ", ")
}
