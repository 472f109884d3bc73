package libvirt

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// eaccess is the kernel's refusal of open(2) O_RDWR on /dev/kvm (mode 0660,
// root:kvm) to a user outside group kvm: EACCES, "search permission is
// denied … or the requested access to the file is not allowed" (open(2),
// ERRORS). Root is never refused so, so the tests inject it.
func eaccess(name string, _ int, _ fs.FileMode) (*os.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
}

// TestKVMProbe covers every kind of machine the probe tells apart, on any
// machine: its /dev/kvm, /sys/module and /proc/cpuinfo are a directory's,
// and the open is the kernel's refusal where the case needs one.
func TestKVMProbe(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dev     bool
		modules []string
		flags   string
		open    func(string, int, fs.FileMode) (*os.File, error)
		want    []string // nil for able to boot
	}{
		{"Intel VT-x", true, []string{"kvm_intel"}, "fpu vme cx16 vmx hypervisor", nil, nil},
		{"AMD-V", true, []string{"kvm_amd"}, "fpu svm cx16", nil, nil},
		{"PVM: /dev/kvm without vmx/svm", true, []string{"kvm_pvm"}, "fpu cx16 hypervisor", nil, []string{"KVM on PVM"}},
		{"no module, no device", false, nil, "fpu vmx", nil, []string{"does not exist and no KVM module (kvm_intel, kvm_amd, kvm_pvm) is loaded"}},
		{"kvm_pvm loaded, no device", false, []string{"kvm_pvm"}, "fpu cx16 hypervisor", nil,
			[]string{"module kvm_pvm is loaded but", "kvm is missing", "only guest kernels built for PVM"}},
		{"kvm_intel loaded, no device", false, []string{"kvm_intel"}, "fpu vmx", nil, []string{"module kvm_intel is loaded but", "kvm is missing"}},
		{"device present but not openable", true, []string{"kvm_intel"}, "vmx", eaccess, []string{"permission denied", "kvm group"}},
		{"device usable, no vmx/svm, not PVM: left to libvirt", true, nil, "fpu cx16", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := fakeKVMHost(t, tc.dev, tc.modules, tc.flags)
			h.open = tc.open
			err := h.probe()
			if tc.want == nil && err != nil || tc.want != nil && err == nil {
				t.Fatalf("probe: %v, want %q", err, tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("probe: %v, want it to say %q", err, w)
				}
			}
		})
	}
}

// TestKVMProbeUnreadableDevice: a /dev/kvm the kernel will not open for
// this user says to join the kvm group — also when the tests run as root
// (CI), whom the kernel never refuses, by the kernel's refusal injected.
func TestKVMProbeUnreadableDevice(t *testing.T) {
	h := fakeKVMHost(t, true, []string{"kvm_intel"}, "vmx")
	h.open = eaccess
	if err := h.probe(); err == nil || !strings.Contains(err.Error(), "kvm group") {
		t.Errorf("probe: %v, want the kvm group named", err)
	}
}

// TestAccelErrorRemedy: what the user reads for a probe that knows its own
// remedy says it beside accel = "tcg" instead of the hardware advice.
func TestAccelErrorRemedy(t *testing.T) {
	h := fakeKVMHost(t, false, []string{"kvm_pvm"}, "fpu")
	err := accelError(h.probe())
	for _, want := range []string{`Set accel = "tcg"`, "--device " + h.dev, "mknod " + h.dev + " c 10 232"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("accelError: %v, want it to say %q", err, want)
		}
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

// TestKVMProbeThisHost checks the real probe on this machine, where it can
// tell first, from the machine itself, which kind it is; on a kind it
// cannot tell it skips saying so.
func TestKVMProbeThisHost(t *testing.T) {
	err := thisHost.probe()
	t.Logf("this host: %v", err)
	t.Logf("this host, QEMU's access to /dev/kvm: %v", thisHost.qemuAccess())
	_, devErr := os.Stat(thisHost.dev)
	mod := thisHost.loadedModule()
	hw, hwErr := thisHost.hardwareVirt()
	var want string
	switch {
	case errors.Is(devErr, fs.ErrNotExist) && mod != "":
		want = "module " + mod + " is loaded but /dev/kvm is missing"
	case errors.Is(devErr, fs.ErrNotExist):
		want = "no KVM module"
	case devErr == nil && mod == "kvm_pvm" && hwErr == nil && !hw && canOpen(thisHost.dev):
		want = "KVM on PVM"
	default:
		t.Skipf("this machine (/dev/kvm: %v; KVM module: %q; vmx/svm: %v, %v) is none of the kinds this test can tell by itself", devErr, mod, hw, hwErr)
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("probe on this machine: %v, want it to say %q", err, want)
	}
}

// canOpen reports whether this process may open name read-write.
func canOpen(name string) bool {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	_ = f.Close()
	return true
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
