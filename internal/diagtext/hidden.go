package diagtext

import (
	"os"
	"path/filepath"
	"strings"
)

// privateDirs are where a symbolic link's target is never shown from,
// even inside the lab directory: a lab directory of / or /etc would
// otherwise make every file "inside" it.
var privateDirs = []string{"/etc", "/root", "/proc", "/sys", "/dev", "/boot", "/var/lib"}

// HiddenSource says why diagnostics must not show the source lines of
// the lab file name (in the lab directory dir), or "" when they may.
//
// The rule: a *.hcl file that is a symbolic link is shown only when the
// file it resolves to lies inside the lab directory (itself resolved) and
// not under /etc, /root, /proc, /sys, /dev, /boot or /var/lib. A lab
// directory handed to lab (a clone, a tarball, a CI checkout) may hold
// main.hcl -> /etc/shadow; lab running as root would read it, find it is
// not HCL, and print its lines in the error. The error is still reported,
// at the same file and line, with "(source not shown: …)" in place of the
// lines. Files that are not regular are refused before they are read, and
// -var-file files are named by the user running lab, so they are shown.
func HiddenSource(dir, name string) string {
	fi, err := os.Lstat(name)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return ""
	}
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "it is a symbolic link that does not resolve"
	}
	target, _ = filepath.Abs(target)
	for _, p := range privateDirs {
		if target == p || strings.HasPrefix(target, p+"/") {
			return "it is a symbolic link into " + p
		}
	}
	root, err := filepath.EvalSymlinks(dir)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		return "it is a symbolic link and the lab directory does not resolve"
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "it is a symbolic link to a file outside the lab directory"
	}
	return ""
}
