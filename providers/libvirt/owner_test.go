package libvirt

import (
	"errors"
	"strings"
	"testing"

	"github.com/lab-bench/lab/providers"
)

func TestOwns(t *testing.T) {
	kvmx := providers.Owner{Lab: "kvmx", Workspace: "0a1b2c3d"}
	tests := []struct {
		name       string
		o          providers.Owner
		tag, labID string
		want       bool
	}{
		{"exact tag", kvmx, kvmx.Tag("pair.p.server"), "kvmx", true},
		{"a lab whose name starts with ours", kvmx, providers.Owner{Lab: "kvmx-g", Workspace: "0a1b2c3d"}.Tag("pair.p.server"), "kvmx-g", false},
		{"another workspace of the same lab", kvmx, providers.Owner{Lab: "kvmx", Workspace: "ffffffff"}.Tag("pair.p.server"), "kvmx", false},
		{"no tag (made by hand)", kvmx, "", "", false},
		{"lab id only (lab 0.1) for a workspace owner", kvmx, "", "kvmx", false},
		{"lab 0.1 state: lab id matched exactly", providers.Owner{Lab: "kvmx"}, "", "kvmx", true},
		{"lab 0.1 state: prefix is not a match", providers.Owner{Lab: "kvmx"}, "", "kvmx-g", false},
		{"lab 0.1 state with no lab", providers.Owner{}, "", "", false},
	}
	for _, tc := range tests {
		if got := owns(tc.o, tc.tag, tc.labID); got != tc.want {
			t.Errorf("%s: owns = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNetworkTag(t *testing.T) {
	o := providers.Owner{Lab: "kvm", Workspace: "0a1b2c3d"}
	tests := []struct {
		name, xml, want string
	}{
		{"lab's own network", networkXML(networkSpec{Name: "lab-kvm-p-1", Bridge: "lab1", Tag: o.Tag("pair.p.link")}), o.Tag("pair.p.link")},
		{"made by hand", "<network><name>lab-kvm-p-1</name><bridge name='virbr9'/></network>", ""},
		{"someone else's metadata", "<network><name>x</name><metadata><lab xmlns='urn:other'><tag>" + o.Tag("pair.p.link") + "</tag></lab></metadata></network>", ""},
		{"not XML", "<network", ""},
	}
	for _, tc := range tests {
		if got := networkTag(tc.xml); got != tc.want {
			t.Errorf("%s: tag %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNotOwnedNamesTheObject(t *testing.T) {
	o := providers.Owner{Lab: "kvm", Workspace: "0a1b2c3d"}
	err := notOwned(o, "volume", "lab-e2e/kvm-p-1a2b3c-s.qcow2", "")
	if !errors.Is(err, providers.ErrNotOwned) {
		t.Errorf("%v does not match providers.ErrNotOwned", err)
	}
	for _, want := range []string{"volume lab-e2e/kvm-p-1a2b3c-s.qcow2", `lab "kvm"`, "0a1b2c3d", "no lab tag"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
