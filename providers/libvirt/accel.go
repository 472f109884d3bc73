package libvirt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The accel = "kvm" probe. A host can offer /dev/kvm and still not boot a
// stock guest kernel under it: KVM on PVM (the kvm_pvm module, KVM without
// the CPU's vmx/svm, as in some cloud sandboxes) runs only kernels built
// for PVM, and a Debian kernel stops early with a KVM emulation failure
// (`lock cmpxchg16b`). libvirt reports such a /dev/kvm usable, and the
// guests then fail their boot a minute or two later. lab looks once, at
// plan (CheckTemplate) and before the first create, when the libvirt host
// is this machine, and fails at once saying what to do. A remote host is
// not looked at: a boot that fails there points at the domain's QEMU log.

// kvmHost is where the probe looks; tests point it at a directory.
type kvmHost struct {
	dev     string // /dev/kvm
	modules string // /sys/module
	cpuinfo string // /proc/cpuinfo
	// open opens dev read-write as QEMU does (nil: os.OpenFile); tests
	// give it the refusal the kernel returns to one who may not.
	open func(name string, flag int, perm fs.FileMode) (*os.File, error)
	// Where qemuAccess (kvmaccess.go) finds the user the system daemon
	// runs QEMU as, and that user's groups.
	qemuConf string // /etc/libvirt/qemu.conf
	passwd   string // /etc/passwd
	group    string // /etc/group
}

var thisHost = kvmHost{dev: "/dev/kvm", modules: "/sys/module", cpuinfo: "/proc/cpuinfo",
	qemuConf: "/etc/libvirt/qemu.conf", passwd: "/etc/passwd", group: "/etc/group"}

// localKVM and localQEMUAccess remember the probes of this machine: they
// do not change while lab runs.
var (
	localKVM        = sync.OnceValue(func() error { return thisHost.probe() })
	localQEMUAccess = sync.OnceValue(func() error { return thisHost.qemuAccess() })
)

// probe says why KVM on h cannot boot a stock guest kernel; nil when it
// looks able to.
func (h kvmHost) probe() error {
	open := h.open
	if open == nil {
		open = os.OpenFile
	}
	f, err := open(h.dev, os.O_RDWR, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if mod := h.loadedModule(); mod != "" {
			return &missingDevError{dev: h.dev, module: mod}
		}
		return fmt.Errorf("%s does not exist and no KVM module (%s) is loaded: this machine offers no virtualisation to lab (load the module for this CPU, or enable VT-x/AMD-V, or nested virtualisation for a VM)", h.dev, strings.Join(kvmModules, ", "))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s cannot be opened read-write (%v): run lab as root or as a member of the kvm group", h.dev, err)
	case err != nil:
		return fmt.Errorf("%s cannot be opened read-write (%v)", h.dev, err)
	}
	_ = f.Close()
	hw, err := h.hardwareVirt()
	if err != nil || hw {
		return nil // cannot tell: libvirt and the boot will
	}
	if _, err := os.Stat(filepath.Join(h.modules, "kvm_pvm")); err == nil {
		return fmt.Errorf("%s is KVM on PVM (module kvm_pvm; this CPU shows neither vmx nor svm): it boots only guest kernels built for PVM, and a stock kernel stops with a KVM emulation failure (lock cmpxchg16b)", h.dev)
	}
	return nil
}

// kvmModules are the modules that give Linux its /dev/kvm: KVM for Intel
// VT-x and AMD-V (virt/kvm, arch/x86/kvm), and PVM's.
var kvmModules = []string{"kvm_intel", "kvm_amd", "kvm_pvm"}

// loadedModule is the first of kvmModules loaded on h (a directory of its
// name in /sys/module); "" when none is.
func (h kvmHost) loadedModule() string {
	for _, m := range kvmModules {
		if _, err := os.Stat(filepath.Join(h.modules, m)); err == nil {
			return m
		}
	}
	return ""
}

// missingDevError is a KVM module that is loaded on a machine without its
// device node: the kernel offers KVM, but nothing made /dev/kvm here (a
// container not given the host's, a /dev without devtmpfs or udev).
type missingDevError struct{ dev, module string }

func (e *missingDevError) Error() string {
	msg := fmt.Sprintf("module %s is loaded but %s is missing: the kernel offers KVM, but no device node for it was made here (a container not given the host's %s, or a /dev without devtmpfs or udev)", e.module, e.dev, e.dev)
	if e.module == "kvm_pvm" {
		msg += "; and KVM on PVM boots only guest kernels built for PVM"
	}
	return msg
}

// remedy makes the node: KVM is the misc device 10:232 (the kernel's
// Documentation/admin-guide/devices.txt, "232 = /dev/kvm").
func (e *missingDevError) remedy() string {
	return fmt.Sprintf("or give this machine the device: run its container with --device %s, or as root make it with mknod %s c 10 232 && chgrp kvm %s && chmod 660 %s", e.dev, e.dev, e.dev, e.dev)
}

// hardwareVirt reports whether the CPU flags in h.cpuinfo include vmx
// (Intel VT-x) or svm (AMD-V).
func (h kvmHost) hardwareVirt() (bool, error) {
	f, err := os.Open(h.cpuinfo)
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // read only
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(key) != "flags" {
			continue
		}
		for _, fl := range strings.Fields(val) {
			if fl == "vmx" || fl == "svm" {
				return true, nil
			}
		}
		return false, nil
	}
	return false, sc.Err()
}

// checkAccel fails when accel = "kvm" on this machine cannot boot the
// guests, saying what to do. It does not dial libvirtd.
func (p *Provider) checkAccel() error {
	if p.cfg.Accel != "kvm" || !onThisHost(p.cfg.URI) {
		return nil
	}
	return accelError(p.probeKVM())
}

// probeKVM is localKVM and, for the system daemon (whose QEMUs run as
// another user than lab), localQEMUAccess; replaced in tests.
func (p *Provider) probeKVM() error {
	if p.kvmProbe != nil {
		return p.kvmProbe()
	}
	if err := localKVM(); err != nil {
		return err
	}
	if systemDaemon(p.cfg.URI) {
		return localQEMUAccess()
	}
	return nil
}

// accelError turns a failed probe into what the user reads: a probe that
// knows its own remedy (a *kvmAccessError, a *missingDevError) says it instead of the
// hardware advice.
func accelError(probe error) error {
	if probe == nil {
		return nil
	}
	other := "or use a host with hardware virtualisation (vmx or svm)"
	var r interface{ remedy() string }
	if errors.As(probe, &r) {
		other = r.remedy()
	}
	return fmt.Errorf(`accel = "kvm" (the default) cannot boot guests on this host: %v. Set accel = "tcg" in the libvirt provider block (QEMU emulation: slower, the same guests), %s`, probe, other)
}

// bootHint is "; " and qemuLogHint for a boot that failed on its own;
// nothing when lab was interrupted (ctx done).
func bootHint(ctx context.Context, name string) string {
	if ctx.Err() != nil {
		return ""
	}
	return "; " + qemuLogHint(name)
}

// qemuLogHint says where libvirt keeps what QEMU and the guest's console
// printed for domain name: the first place to look when a boot fails.
func qemuLogHint(name string) string {
	return fmt.Sprintf("QEMU's log: %s/%s.log, the guest's console: %s/%s-console.log (on the libvirt host)", consoleLogDir, name, consoleLogDir, name)
}
