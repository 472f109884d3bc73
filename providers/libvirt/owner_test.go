package libvirt

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

func TestOwns(t *testing.T) {
	kvmx := machine.Owner{Lab: "kvmx", Workspace: "0a1b2c3d"}
	tests := []struct {
		name       string
		o          machine.Owner
		tag, labID string
		want       bool
	}{
		{"exact tag", kvmx, kvmx.Tag("pair.p.server"), "kvmx", true},
		{"a lab whose name starts with ours", kvmx, machine.Owner{Lab: "kvmx-g", Workspace: "0a1b2c3d"}.Tag("pair.p.server"), "kvmx-g", false},
		{"another workspace of the same lab", kvmx, machine.Owner{Lab: "kvmx", Workspace: "ffffffff"}.Tag("pair.p.server"), "kvmx", false},
		{"no tag (made by hand)", kvmx, "", "", false},
		{"lab id only (lab 0.1) for a workspace owner", kvmx, "", "kvmx", false},
		{"lab 0.1 state: lab id matched exactly", machine.Owner{Lab: "kvmx"}, "", "kvmx", true},
		{"lab 0.1 state: prefix is not a match", machine.Owner{Lab: "kvmx"}, "", "kvmx-g", false},
		{"lab 0.1 state with no lab", machine.Owner{}, "", "", false},
	}
	for _, tc := range tests {
		if got := owns(tc.o, tc.tag, tc.labID); got != tc.want {
			t.Errorf("%s: owns = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNetworkTag(t *testing.T) {
	o := machine.Owner{Lab: "kvm", Workspace: "0a1b2c3d"}
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
	o := machine.Owner{Lab: "kvm", Workspace: "0a1b2c3d"}
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

// TestListedOwnerIsTheObjects: asked for every workspace of a lab, List
// reports the workspace each object's own tag names, never the "*" it was
// asked with (a hint built from it named no real workspace).
func TestListedOwnerIsTheObjects(t *testing.T) {
	every := machine.Owner{Lab: "kvm", Workspace: machine.AnyWorkspace}
	theirs := machine.Owner{Lab: "kvm", Workspace: "ffffffff"}
	meta := labMeta{LabID: "kvm", Address: "pair.p.server", Volume: "kvm-p-s.qcow2", Pool: "lab", Seed: "kvm-p-s-cidata.img", Tag: theirs.Tag("pair.p.server")}
	if !owns(every, meta.Tag, meta.LabID) {
		t.Fatal("the any-workspace owner does not match the domain")
	}
	in := domainInstance(every, golibvirt.Domain{Name: "kvm-p-s"}, meta)
	if in.Owner != theirs || in.Address != "pair.p.server" || in.Attrs[attrVolume] != meta.Volume || in.Attrs[attrSeed] != meta.Seed || in.Attrs[attrLabID] != "kvm" {
		t.Errorf("domain listed as %+v, want owner %+v with its volumes", in, theirs)
	}
	old := domainInstance(machine.Owner{Lab: "kvm"}, golibvirt.Domain{Name: "kvm-p-s"}, labMeta{LabID: "kvm", Address: "pair.p.server"})
	if old.Owner != (machine.Owner{Lab: "kvm"}) {
		t.Errorf("a lab 0.1 domain (no tag) listed with owner %+v, want the lab-id owner it was matched by", old.Owner)
	}
	net := networkInstance(golibvirt.Network{Name: "lab-kvm-p-1"}, theirs.Tag("pair.p.link"))
	if net.Owner != theirs || net.Address != "pair.p.link" || net.Name != "kvm-p-1" || net.Attrs[attrNetwork] != "lab-kvm-p-1" {
		t.Errorf("network listed as %+v, want owner %+v", net, theirs)
	}
}

// TestDefiningXMLCarriesTheTag: a domain and a network carry their owner's
// tag in the very XML that creates them (DomainDefineXML,
// NetworkCreateXML), so no interrupt can leave one untagged; an overlay or
// seed volume is named in its domain's tag-carrying metadata before it is
// created.
func TestDefiningXMLCarriesTheTag(t *testing.T) {
	o := machine.Owner{Lab: "kvm", Workspace: "0a1b2c3d"}
	x, err := domainXML(domainSpec{Name: "kvm-p-s", Type: "qemu", Pool: "lab", Volume: "kvm-p-s.qcow2", Seed: "kvm-p-s-cidata.img", Network: "lab-kvm-p", MAC: "52:54:00:00:00:01", Model: "virtio",
		Meta: labMeta{LabID: "kvm", Address: "pair.p.server", Volume: "kvm-p-s.qcow2", Seed: "kvm-p-s-cidata.img", Pool: "lab", Tag: o.Tag("pair.p.server")}})
	if err != nil {
		t.Fatal(err)
	}
	var dom struct {
		Metadata struct {
			Inner string `xml:",innerxml"`
		} `xml:"metadata"`
	}
	if err := xml.Unmarshal([]byte(x), &dom); err != nil {
		t.Fatal(err)
	}
	meta, err := parseMeta(dom.Metadata.Inner)
	if err != nil || !owns(o, meta.Tag, meta.LabID) || meta.Volume != "kvm-p-s.qcow2" || meta.Seed != "kvm-p-s-cidata.img" {
		t.Errorf("the domain's defining XML does not prove it and its volumes %+v's: %+v (%v)\n%s", o, meta, err, x)
	}
	n := networkXML(networkSpec{Name: "lab-kvm-p", Bridge: "lab1", Network: [3]byte{198, 18, 1}, Tag: o.Tag("pair.p.link")})
	if !o.Owns(networkTag(n)) {
		t.Errorf("the network's defining XML carries no tag of %+v:\n%s", o, n)
	}
}
