package scripts

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestBuildImageMakesOneInitramfs checks build-kvm-image.sh's order of work
// for the one initramfs (issue 33): debootstrap installs no kernel and no
// initramfs-tools (its dpkg runs would build two full initramfs images,
// from the kernel's postinst and from initramfs-tools' trigger); the chroot
// installs them with update-initramfs diverted to a stub, restores it, and
// then runs update-initramfs once, after the image's initramfs
// configuration is written.
func TestBuildImageMakesOneInitramfs(t *testing.T) {
	b, err := os.ReadFile("build-kvm-image.sh")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	find := func(re string) []int {
		var at []int
		r := regexp.MustCompile(re)
		for i, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "#") && r.MatchString(l) {
				at = append(at, i+1)
			}
		}
		return at
	}
	one := func(what, re string) int {
		at := find(re)
		if len(at) != 1 {
			t.Fatalf("%s (%s): lines %v, want exactly one", what, re, at)
		}
		return at[0]
	}
	pkgs := one("debootstrap's package list", `^packages=`)
	if l := lines[pkgs-1]; strings.Contains(l, "linux-image") || strings.Contains(l, "initramfs-tools") {
		t.Errorf("line %d: debootstrap installs the kernel or initramfs-tools, each builds an initramfs: %s", pkgs, l)
	}
	if l := lines[one("chroot package list", `^chroot_packages=`)-1]; !strings.Contains(l, "linux-image-amd64") || !strings.Contains(l, "initramfs-tools") {
		t.Errorf("the chroot installs no kernel or no initramfs-tools: %s", l)
	}
	divert := one("diversion", `dpkg-divert .*--add /usr/sbin/update-initramfs`)
	install := one("kernel install", `apt-get install .*\$chroot_packages`)
	restore := one("diversion removed", `dpkg-divert .*--remove /usr/sbin/update-initramfs`)
	config := one("initramfs configuration", `MODULES=list`)
	build := find(`update-initramfs -[cu]`)
	if len(build) != 1 {
		t.Fatalf("update-initramfs runs on lines %v, want once", build)
	}
	if !(divert < install && install < restore && restore < config && config < build[0]) {
		t.Errorf("divert (line %d) < install (%d) < restore (%d) < configure (%d) < build (%d) does not hold",
			divert, install, restore, config, build[0])
	}
}
