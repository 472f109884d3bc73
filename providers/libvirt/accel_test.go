package libvirt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeKVMHost lays out a /dev/kvm (or not), /sys/module and /proc/cpuinfo
// in a directory.
func fakeKVMHost(t *testing.T, dev bool, modules []string, flags string) kvmHost {
	t.Helper()
	dir := t.TempDir()
	h := kvmHost{dev: filepath.Join(dir, "kvm"), modules: filepath.Join(dir, "module"), cpuinfo: filepath.Join(dir, "cpuinfo")}
	if dev {
		if err := os.WriteFile(h.dev, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range append(modules, "kvm") {
		if err := os.MkdirAll(filepath.Join(h.modules, m), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	info := "processor\t: 0\nmodel name\t: test\nflags\t\t: " + flags + "\n\nprocessor\t: 1\nflags\t\t: " + flags + "\n"
	if err := os.WriteFile(h.cpuinfo, []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestKVMProbe(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dev     bool
		modules []string
		flags   string
		want    string // "" for able to boot
	}{
		{"Intel VT-x", true, []string{"kvm_intel"}, "fpu vme cx16 vmx hypervisor", ""},
		{"AMD-V", true, []string{"kvm_amd"}, "fpu svm cx16", ""},
		{"PVM: /dev/kvm without vmx/svm", true, []string{"kvm_pvm"}, "fpu cx16 hypervisor", "KVM on PVM"},
		{"no /dev/kvm", false, nil, "fpu vmx", "does not exist"},
		{"no vmx/svm, not PVM: left to libvirt", true, nil, "fpu cx16", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fakeKVMHost(t, tc.dev, tc.modules, tc.flags).probe()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("probe: %v, want %q", err, tc.want)
			}
		})
	}
}

func TestKVMProbeUnreadableDevice(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root opens a mode-000 file")
	}
	h := fakeKVMHost(t, true, []string{"kvm_intel"}, "vmx")
	if err := os.Chmod(h.dev, 0); err != nil {
		t.Fatal(err)
	}
	if err := h.probe(); err == nil || !strings.Contains(err.Error(), "kvm group") {
		t.Errorf("probe: %v, want the kvm group named", err)
	}
}

// The probe's verdict reaches plan (CheckTemplate) and apply (Create,
// before anything is made) as what to do; tcg and remote hosts are not
// probed.
func TestAccelCheckedAtPlanAndCreate(t *testing.T) {
	pvm := fakeKVMHost(t, true, []string{"kvm_pvm"}, "fpu cx16").probe
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"default accel on this host", `pool = "lab"`, true},
		{"tcg", `accel = "tcg"`, false},
		{"remote host", `uri = "qemu+tcp://libvirt.example/system"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New()
			if d := p.Configure(context.Background(), hclBody(t, tc.body)); d.HasErrors() {
				t.Fatal(d)
			}
			p.kvmProbe = pvm
			m := testMachine()
			err := p.CheckTemplate(context.Background(), m)
			if !tc.want {
				if err != nil {
					t.Errorf("plan: %v", err)
				}
				return
			}
			for _, want := range []string{`accel = "kvm"`, "KVM on PVM", `Set accel = "tcg"`} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("plan: %v, want it to say %q", err, want)
				}
			}
			in, err := p.Create(context.Background(), m)
			if err == nil || !strings.Contains(err.Error(), `Set accel = "tcg"`) {
				t.Errorf("create: %v, want the accel advice", err)
			}
			if in.Address != "" {
				t.Errorf("create refused before making anything returned an instance to record: %+v", in)
			}
		})
	}
}

// On a host whose KVM is PVM (the machine these tests were written on),
// the real probe says so.
func TestKVMProbeThisHost(t *testing.T) {
	err := thisHost.probe()
	t.Logf("this host: %v", err)
	t.Logf("this host, QEMU's access to /dev/kvm: %v", thisHost.qemuAccess())
	if _, serr := os.Stat("/sys/module/kvm_pvm"); serr == nil {
		if hw, _ := thisHost.hardwareVirt(); !hw && (err == nil || !strings.Contains(err.Error(), "KVM on PVM")) {
			t.Errorf("kvm_pvm loaded, no vmx/svm: probe %v, want KVM on PVM named", err)
		}
	}
}

// A failed boot names the domain's QEMU and console logs; an interrupted
// one does not send the user looking there.
func TestBootHint(t *testing.T) {
	got := bootHint(context.Background(), "kvm-p-s")
	for _, want := range []string{"/var/log/libvirt/qemu/kvm-p-s.log", "/var/log/libvirt/qemu/kvm-p-s-console.log"} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q does not name %s", got, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := bootHint(ctx, "kvm-p-s"); got != "" {
		t.Errorf("interrupted boot: hint %q, want none", got)
	}
}
