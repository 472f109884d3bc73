package libvirt

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
)

func TestStateName(t *testing.T) {
	for _, tc := range []struct {
		state int32
		want  string
	}{{1, "running"}, {3, "paused"}, {5, "shut off"}, {6, "crashed"}, {42, "in unknown state 42"}} {
		if got := stateName(tc.state); got != tc.want {
			t.Errorf("state %d: %q, want %q", tc.state, got, tc.want)
		}
	}
}

func TestWrongOS(t *testing.T) {
	tmpl := func(os string) machine.Template {
		return machine.Template{Name: "debian", Source: "base.qcow2", OS: os}
	}
	tests := []struct {
		name    string
		tmpl    machine.Template
		kernel  string
		wantErr string
	}{
		{"linux on linux", tmpl("linux"), "Linux", ""},
		{"freebsd on freebsd", tmpl("freebsd"), "FreeBSD", ""},
		{"freebsd template on a linux image", tmpl("freebsd"), "Linux", `template "debian" says os = "freebsd", but the guest's uname -s answers Linux (not FreeBSD)`},
		{"linux template, no answer", tmpl("linux"), "", "answers nothing"},
		{"an OS lab has no check for", tmpl("plan9"), "Plan9", ""},
	}
	for _, tc := range tests {
		err := wrongOS(tc.tmpl, tc.kernel)
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
	}
}

// The networks a run's liveness watch checks: the link's (unless it is a
// host device), a router's second link's and the management network.
func TestMachineNetworks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs map[string]string
		want  string
	}{
		{"lab's network", map[string]string{attrNetwork: "lab-kvm-p"}, "lab-kvm-p link"},
		{"with management", map[string]string{attrNetwork: "lab-kvm-p", attrMgmtNetwork: "lab-kvm-p-mgmt"}, "lab-kvm-p link, lab-kvm-p-mgmt management network"},
		{"host bridge link", map[string]string{attrLinkType: "bridge", attrLinkDev: "br0", attrMgmtNetwork: "default"}, "default management network"},
		{"a router", map[string]string{attrNetwork: "lab-kvm-p", attrNetwork2: "lab-kvm-p-c", attrMgmtNetwork: "lab-kvm-p-mgmt"},
			"lab-kvm-p link, lab-kvm-p-c client link, lab-kvm-p-mgmt management network"},
		{"nothing recorded", nil, ""},
	} {
		var got []string
		for _, n := range machineNetworks(machine.Instance{Kind: "machine", Attrs: tc.attrs}) {
			got = append(got, n.name+" "+n.role)
		}
		if strings.Join(got, ", ") != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, strings.Join(got, ", "), tc.want)
		}
	}
}
