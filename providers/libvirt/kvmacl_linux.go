package libvirt

import "golang.org/x/sys/unix"

// hasACL reports whether path carries a POSIX access ACL (the
// system.posix_acl_access attribute, acl(5)), which can let a user in
// that the mode bits keep out: qemuAccess then cannot tell from the mode.
func hasACL(path string) bool {
	_, err := unix.Getxattr(path, "system.posix_acl_access", nil)
	return err == nil
}
