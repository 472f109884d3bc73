package libvirt

import (
	"bufio"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// Whether QEMU can open /dev/kvm. The system daemon (qemu:///system) runs
// each QEMU as the user and group of its qemu.conf (Debian: libvirt-qemu,
// Fedora: qemu), with that user's supplementary groups, not as lab's
// user. A /dev/kvm of mode 0600 root:root (what a kernel without udev's
// rule leaves, as on this project's CI machine) opens for lab running as
// root and still not for QEMU: libvirt then finds no usable KVM and the
// first apply failed only after 144 s. qemuAccess reads the device's mode
// and owner and the QEMU user's ids from the files and fails at plan,
// naming the device, its mode and the remedy. When it cannot tell (no
// qemu.conf, a user that is not in /etc/passwd: NSS, LDAP) it says
// nothing, and libvirt decides at apply; so it does for a device with an
// ACL (which may let QEMU's user in whatever the mode says).

// kvmAccessError is a /dev/kvm QEMU cannot open; fix is what makes it
// openable (accelError says it beside accel = "tcg").
type kvmAccessError struct {
	dev, mode, owner, user, groups, fix string
}

// remedy is what accelError says beside accel = "tcg".
func (e *kvmAccessError) remedy() string { return "or " + e.fix }

func (e *kvmAccessError) Error() string {
	return fmt.Sprintf("%s is mode %s, owned by %s: QEMU, which libvirtd runs as user %s (groups %s; qemu.conf's user and group), cannot open it",
		e.dev, e.mode, e.owner, e.user, e.groups)
}

// systemDaemon reports whether uri names the system libvirtd on this
// host (qemu:///system, qemu+unix:///system?socket=…): the one whose
// QEMUs run as qemu.conf's user.
func systemDaemon(uri string) bool {
	u, err := url.Parse(uri)
	return err == nil && onThisHost(uri) && u.Path == "/system"
}

// qemuAccess fails when h's /dev/kvm does not open for the QEMU user of
// h's qemu.conf; nil when it does or when that cannot be told.
func (h kvmHost) qemuAccess() error {
	fi, err := os.Stat(h.dev)
	if err != nil {
		return nil // probe says why
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	q, ok := h.qemuIDs()
	if !ok || q.canOpen(fi.Mode().Perm(), st.Uid, st.Gid) || hasACL(h.dev) {
		return nil
	}
	owner := h.nameOf(h.passwd, st.Uid) + ":" + h.nameOf(h.group, st.Gid)
	var groups []string
	for _, g := range q.gids {
		groups = append(groups, h.nameOf(h.group, g))
	}
	mode := fmt.Sprintf("%04o", uint32(fi.Mode().Perm()))
	fix := fmt.Sprintf("let QEMU open it: chmod 0666 %s (systemd's udev rule for kvm), or chgrp GROUP %s && chmod 0660 %s with GROUP one of %s; a udev rule (KERNEL==\"kvm\", GROUP=\"kvm\", MODE=\"0666\") keeps it across reboots",
		h.dev, h.dev, h.dev, strings.Join(groups, ", "))
	return &kvmAccessError{dev: h.dev, mode: mode, owner: owner, user: q.name, groups: strings.Join(groups, ","), fix: fix}
}

// qemuIDs is the user QEMU runs as.
type qemuIDs struct {
	name string
	uid  uint32
	gids []uint32 // its group first, then its supplementary groups
}

// canOpen applies the permission bits as the kernel does for a process
// without CAP_DAC_OVERRIDE (libvirt drops QEMU's capabilities): the
// owner's bits for the owner, else the group's for a member, else the
// others'. Root opens everything.
func (q qemuIDs) canOpen(mode fs.FileMode, uid, gid uint32) bool {
	switch {
	case q.uid == 0:
		return true
	case q.uid == uid:
		return mode&0o600 == 0o600
	}
	for _, g := range q.gids {
		if g == gid {
			return mode&0o060 == 0o060
		}
	}
	return mode&0o006 == 0o006
}

// confLine is `key = "value"` of libvirt's qemu.conf (virconf syntax),
// or a line that comments one out right after the "#". The file a
// distribution ships holds the build's defaults so (this machine's
// Debian libvirt 9.0.0: `#user = "libvirt-qemu"`, `#group =
// "libvirt-qemu"`), and examples indented after it (`#       user =
// "qemu"`), which are not defaults.
var confLine = regexp.MustCompile(`^(\s*|#)(user|group)\s*=\s*"([^"]*)"`)

// qemuUserGroup reads qemu.conf's user and group: a setting, else the
// commented default; "" when the file says neither.
func (h kvmHost) qemuUserGroup() (user, group string) {
	set, def := map[string]string{}, map[string]string{}
	for _, line := range readLines(h.qemuConf) {
		m := confLine.FindStringSubmatch(line)
		switch {
		case m == nil:
		case m[1] != "#":
			set[m[2]] = m[3]
		case def[m[2]] == "":
			def[m[2]] = m[3]
		}
	}
	pick := func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return def[k]
	}
	return pick("user"), pick("group")
}

// qemuIDs resolves qemu.conf's user and group in h's passwd and group
// files the way libvirt does (a name first, "+N" or an unknown number as
// an id); its supplementary groups are the group lines that list it.
// Without a group setting QEMU runs with the user's own group.
func (h kvmHost) qemuIDs() (qemuIDs, bool) {
	user, group := h.qemuUserGroup()
	if user == "" {
		return qemuIDs{}, false
	}
	q := qemuIDs{name: user}
	uid, gid, ok := lookupID(h.passwd, user, true)
	if !ok {
		return q, false
	}
	q.uid = uid
	if group != "" {
		if gid, _, ok = lookupID(h.group, group, false); !ok {
			return q, false
		}
	}
	q.gids = append(q.gids, gid)
	for _, line := range readLines(h.group) {
		f := strings.Split(line, ":")
		if len(f) < 4 {
			continue
		}
		for _, member := range strings.Split(f[3], ",") {
			if n, err := strconv.ParseUint(f[2], 10, 32); err == nil && member == user && uint32(n) != gid {
				q.gids = append(q.gids, uint32(n))
			}
		}
	}
	return q, true
}

// lookupID finds name ("+N": id N) in a passwd (user) or group file:
// its id and, for a user, its primary group.
func lookupID(file, name string, user bool) (id, gid uint32, ok bool) {
	byID := strings.HasPrefix(name, "+")
	want := strings.TrimPrefix(name, "+")
	for _, line := range readLines(file) {
		f := strings.Split(line, ":")
		if len(f) < 3 || user && len(f) < 4 {
			continue
		}
		if !byID && f[0] != want || byID && f[2] != want {
			continue
		}
		n, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil {
			return 0, 0, false
		}
		if user {
			g, err := strconv.ParseUint(f[3], 10, 32)
			return uint32(n), uint32(g), err == nil
		}
		return uint32(n), 0, true
	}
	if n, err := strconv.ParseUint(want, 10, 32); err == nil && !user {
		return uint32(n), 0, true // a bare gid
	}
	return 0, 0, false
}

// nameOf is the name of id in a passwd or group file, else the number.
func (h kvmHost) nameOf(file string, id uint32) string {
	s := strconv.FormatUint(uint64(id), 10)
	for _, line := range readLines(file) {
		if f := strings.Split(line, ":"); len(f) >= 3 && f[2] == s {
			return f[0]
		}
	}
	return s
}

// readLines is file's lines; none when it cannot be read.
func readLines(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }() // read only
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
