package libvirt

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
)

// offlineDial is a libvirtd that is not there: no socket.
func offlineDial(*url.URL, time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
	return nil, nil, syscall.ENOENT
}

// qemuHost is a fake host whose /dev/kvm is a temporary file of mode
// mode, owned by this test's user (named "owner" in its passwd file, its
// group "ownergrp"), with qemuConf as /etc/libvirt/qemu.conf and the
// passwd and group lines of Debian's libvirt-daemon-system (user
// libvirt-qemu, uid 64055, its own group; this machine's /etc/passwd).
func qemuHost(t *testing.T, mode os.FileMode, qemuConf, extraGroups string) kvmHost {
	t.Helper()
	h := fakeKVMHost(t, true, []string{"kvm_intel"}, "vmx")
	dir := filepath.Dir(h.dev)
	if err := os.Chmod(h.dev, mode); err != nil {
		t.Fatal(err)
	}
	uid, gid := os.Getuid(), os.Getgid()
	h.qemuConf, h.passwd, h.group = filepath.Join(dir, "qemu.conf"), filepath.Join(dir, "passwd"), filepath.Join(dir, "group")
	passwd := fmt.Sprintf("owner:x:%d:%d::/:/bin/sh\nlibvirt-qemu:x:64055:64055:Libvirt Qemu,,,:/var/lib/libvirt:/usr/sbin/nologin\nqemu:x:%d:%d::/:/sbin/nologin\n", uid, gid, uid, gid)
	group := fmt.Sprintf("ownergrp:x:%d:\nlibvirt-qemu:x:64055:libvirt-qemu\n%s", gid, extraGroups)
	for file, text := range map[string]string{h.passwd: passwd, h.group: group} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if qemuConf != "" {
		if err := os.WriteFile(h.qemuConf, []byte(qemuConf), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// debianConf is the part of Debian's shipped qemu.conf (libvirt 9.0.0,
// this machine's /etc/libvirt/qemu.conf) that names the QEMU user: the
// build's defaults, commented out.
const debianConf = `# Some examples of valid values are:
#
#       user = "qemu"   # A user named "qemu"
#       user = "+0"     # Super user (uid=0)
#       user = "100"    # A user named "100" or a user with uid=100
#
#user = "libvirt-qemu"

# The group for QEMU processes run by the system instance. It can be
# specified in a similar way to user.
#group = "libvirt-qemu"
`

// TestQEMUAccess: a /dev/kvm of mode 0600 that QEMU's user does not own
// fails, naming the device, its mode, its owner, the QEMU user and the
// remedy; a mode or a group that lets that user in, QEMU running as the
// owner or as root, and a host where the user cannot be told pass.
func TestQEMUAccess(t *testing.T) {
	owner := strconv.Itoa(os.Getgid())
	for _, tc := range []struct {
		name       string
		mode       os.FileMode
		conf, grps string
		want       bool // refused
	}{
		{"0600, Debian's default user", 0o600, debianConf, "", true},
		{"0660, QEMU's user not in the group", 0o660, debianConf, "", true},
		{"0666", 0o666, debianConf, "", false},
		{"0660, QEMU's user in the device's group", 0o660, debianConf, "kvm:x:" + owner + ":libvirt-qemu\n", false},
		{"0660, the device's group set in qemu.conf", 0o660, debianConf + "group = \"ownergrp\"\n", "", false},
		{"0600, QEMU runs as the device's owner", 0o600, debianConf + "user = \"qemu\"\n", "", false},
		{"0600, QEMU runs as root", 0o600, debianConf + "user = \"+0\"\n", "", false},
		{"no qemu.conf: cannot tell", 0o600, "", "", false},
		{"a user not in /etc/passwd: cannot tell", 0o600, "user = \"ldap-qemu\"\n", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := qemuHost(t, tc.mode, tc.conf, tc.grps)
			err := h.qemuAccess()
			if !tc.want {
				if err != nil {
					t.Errorf("qemuAccess: %v, want none", err)
				}
				return
			}
			msg := fmt.Sprint(accelError(err))
			for _, want := range []string{h.dev, fmt.Sprintf("mode %04o", tc.mode), "owned by owner:ownergrp", "user libvirt-qemu", `Set accel = "tcg"`, "chmod 0666 " + h.dev} {
				if err == nil || !strings.Contains(msg, want) {
					t.Errorf("qemuAccess: %q, want it to say %q", msg, want)
				}
			}
			if strings.Contains(msg, "vmx or svm") {
				t.Errorf("a permission problem is advised about hardware virtualisation: %s", msg)
			}
		})
	}
}

// A mode-0600 /dev/kvm fails the plan at once (CheckTemplate, before any
// dial) and the create before anything is made, for the system daemon;
// a session daemon's QEMU runs as lab's user, whom probe covers.
func TestQEMUAccessAtPlan(t *testing.T) {
	h := qemuHost(t, 0o600, debianConf, "")
	p := New()
	if d := p.Configure(context.Background(), hclBody(t, `pool = "lab"`)); d.HasErrors() {
		t.Fatal(d)
	}
	p.kvmProbe = h.qemuAccess
	p.dial = offlineDial
	start := time.Now()
	err := p.CheckTemplate(context.Background(), testMachine())
	if err == nil || !strings.Contains(err.Error(), h.dev+" is mode 0600") {
		t.Fatalf("plan: %v, want the device and its mode named", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the plan took %v to refuse", d)
	}
	if in, err := p.Create(context.Background(), testMachine()); err == nil || in.Address != "" {
		t.Errorf("create: %v, %+v; want a refusal that made nothing", err, in)
	}
	for uri, want := range map[string]bool{"qemu:///system": true, "qemu+unix:///system?socket=/x": true, "qemu:///session": false, "qemu+ssh://kvm1/system": false} {
		if systemDaemon(uri) != want {
			t.Errorf("systemDaemon(%s) = %v, want %v", uri, !want, want)
		}
	}
}
