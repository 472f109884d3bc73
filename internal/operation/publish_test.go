package operation

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/spec"
)

// TestHostNotes: a libvirt provider under TCG is noted in the bundle by
// itself (the back end declares it: providers.HostNoter), others are not.
func TestHostNotes(t *testing.T) {
	for _, tt := range []struct{ accel, want string }{
		{`accel = "tcg"`, `provider "libvirt.emu": TCG (QEMU emulation), no KVM acceleration`},
		{`accel = "kvm"`, ""},
		{``, ""},
	} {
		src := "lab \"a\" {}\nprovider \"libvirt\" \"emu\" {\n  " + tt.accel + "\n}\n" +
			"template \"t\" { provider = provider.libvirt.emu }\npair \"p\" { template = template.t }\n" +
			"experiment \"e\" {\n  pairs = [pair.p]\n  iperf3 {}\n}\n"
		l, diags := spec.LoadFiles("", map[string][]byte{"lab.hcl": []byte(src)}, spec.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := strings.Join(HostNotes(l), "; ")
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: notes %q, want %q", tt.accel, got, tt.want)
		}
	}
}
