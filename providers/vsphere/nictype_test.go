package vsphere

import "testing"

// The NIC models Create takes are Capabilities' (one list): each is its
// govmomi device type's name, none means the first, vmxnet3, and a model
// the plan would refuse Create refuses too.
func TestNICTypeFollowsCapabilities(t *testing.T) {
	p := New()
	for _, m := range p.Capabilities().NICModels {
		if got, ok := p.nicType(m); !ok || got != m {
			t.Errorf("nicType(%q) = %q, %v", m, got, ok)
		}
	}
	if got, ok := p.nicType(""); !ok || got != "vmxnet3" {
		t.Errorf(`nicType("") = %q, %v; want vmxnet3`, got, ok)
	}
	if _, ok := p.nicType("virtio"); ok {
		t.Error("virtio is no vSphere NIC")
	}
}
