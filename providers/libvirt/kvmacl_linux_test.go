package libvirt

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// A device whose ACL may let QEMU's user in is not judged by its mode:
// an access ACL (acl(5); the xattr's layout is the kernel's
// posix_acl_xattr_header and _entry, little-endian, version 2) naming
// libvirt-qemu (uid 64055) with rw- leaves the verdict to libvirt.
func TestQEMUAccessACL(t *testing.T) {
	h := qemuHost(t, 0o600, debianConf, "")
	if hasACL(h.dev) {
		t.Fatalf("%s: a fresh file has an ACL", h.dev)
	}
	acl := []byte{2, 0, 0, 0}
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{0x01, 6, 0xffffffff}, {0x02, 6, 64055}, {0x04, 0, 0xffffffff}, {0x10, 6, 0xffffffff}, {0x20, 0, 0xffffffff}} {
		acl = binary.LittleEndian.AppendUint16(acl, e.tag)
		acl = binary.LittleEndian.AppendUint16(acl, e.perm)
		acl = binary.LittleEndian.AppendUint32(acl, e.id)
	}
	if err := unix.Setxattr(h.dev, "system.posix_acl_access", acl, 0); err != nil {
		t.Skipf("cannot set an ACL here (%v)", err)
	}
	if !hasACL(h.dev) {
		t.Fatal("hasACL misses the ACL just set")
	}
	if err := h.qemuAccess(); err != nil {
		t.Errorf("qemuAccess with an ACL for libvirt-qemu: %v, want it left to libvirt", err)
	}
}
