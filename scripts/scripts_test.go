// Package scripts holds lab's root shell scripts; its tests check that they
// cannot delete, unmount or chroot into the host's own directories.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rootScripts are the shell scripts that run as root.
var rootScripts = []string{"build-kvm-image.sh", "fuzz.sh", "gotest.sh", "install-deps.sh", "safe-rm.sh", "start-libvirtd.sh", "../test/kvm/harness.sh", "../test/kvm/with-harness.sh", "../.ci/run"}

// unguarded finds a word that starts with a bare $var or ${var} (not
// ${var:?}): with var unset or empty, the path that word makes is the
// host's own.
var unguarded = regexp.MustCompile(`(^|[\s"'=])\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)`)

// dangerous are the commands whose path arguments must be guarded.
var dangerous = regexp.MustCompile(`(^|[\s;&|({])(rm|umount|chroot)\s`)

func TestRootScriptsParseAndGuardPaths(t *testing.T) {
	for _, name := range rootScripts {
		t.Run(filepath.Base(name), func(t *testing.T) {
			if out, err := exec.Command("bash", "-n", name).CombinedOutput(); err != nil {
				t.Fatalf("bash -n %s: %v\n%s", name, err, out)
			}
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				code, _, _ := strings.Cut(line, " #") // a trailing comment
				if strings.HasPrefix(strings.TrimSpace(code), "#") || !dangerous.MatchString(code) {
					continue
				}
				rest := code[dangerous.FindStringIndex(code)[0]:]
				if m := unguarded.FindString(rest); m != "" {
					t.Errorf("%s:%d: %q starts a path with %s: write ${var:?}", name, i+1, strings.TrimSpace(line), strings.TrimSpace(m))
				}
			}
		})
	}
}

// TestUnguardedFinds keeps the check above honest: it must flag the lines
// that deleted a development machine's files.
func TestUnguardedFinds(t *testing.T) {
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{`rm -f "$root"/etc/ssh/ssh_host_*`, true},
		{`rm -rf "$cloud_root"/var/lib/apt/lists/*`, true},
		{`  for m in proc sys; do umount "$root/$m"; done`, true},
		{`chroot ${root} true`, true},
		{`rm -f "${root:?}"/etc/ssh/ssh_host_*`, false},
		{`umount "${root:?}/$m"`, false},
		{`rm -f /var/cache/libvirt/qemu/capabilities/*.xml`, false},
	} {
		rest := tc.line
		if loc := dangerous.FindStringIndex(rest); loc != nil {
			rest = rest[loc[0]:]
		} else {
			rest = ""
		}
		if got := unguarded.MatchString(rest); got != tc.bad {
			t.Errorf("%q: flagged %v, want %v", tc.line, got, tc.bad)
		}
	}
}

// inMountNS runs script with bash in a private mount namespace (its mounts
// vanish with it), with scripts/safe-rm.sh sourced, dir as $1 and args
// after it.
func inMountNS(t *testing.T, dir, script string, args ...string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (unshare -m, mount --bind)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	lib, err := filepath.Abs("safe-rm.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "bash", "-c", "set -u; . " + lib + "\n" + script, "bash", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// hostTree makes dir/host/keep (standing for the host's /dev) and
// dir/work/root/dev, where the scripts bind-mount it.
func hostTree(t *testing.T) (dir, keep string) {
	dir = t.TempDir()
	keep = filepath.Join(dir, "host", "keep")
	for _, d := range []string{filepath.Join(dir, "host"), filepath.Join(dir, "work", "root", "dev"), filepath.Join(dir, "work", "root", "proc")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(keep, []byte("the host's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, keep
}

func TestRmTreeRefusesWhileMounted(t *testing.T) {
	dir, keep := hostTree(t)
	out, err := inMountNS(t, dir, `mount --bind "$1/host" "$1/work/root/dev" && rm_tree "$1/work"`)
	if err == nil {
		t.Errorf("rm_tree deleted a directory with a mount below it:\n%s", out)
	}
	if !strings.Contains(out, "refusing to delete") || !strings.Contains(out, "work/root/dev") {
		t.Errorf("the refusal does not name the mount:\n%s", out)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the bind-mounted tree lost its file: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "work")); err != nil {
		t.Errorf("the refused directory is gone: %v", err)
	}
}

func TestRmTreeRefusesEmptyAndRoot(t *testing.T) {
	dir, _ := hostTree(t)
	for _, tc := range []struct{ script, want string }{
		{`unset work; rm_tree "${work:-}"`, "no directory given"},
		{`rm_tree ""`, "no directory given"},
		{`rm_tree /`, "it is /"},
		{`rm_tree "$1/work/../../../../../../../../.."`, "it is /"},
		{`unmount_below /`, "below /"},
	} {
		out, err := inMountNS(t, dir, tc.script)
		if err == nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s: err %v, output %q; want a refusal saying %q", tc.script, err, out, tc.want)
		}
	}
}

// scriptFunc is the text of shell function name in file, from "name() {"
// to the first line that is just "}".
func scriptFunc(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?ms)^` + regexp.QuoteMeta(name) + `\(\) \{\n.*?^\}\n`).Find(b)
	if m == nil {
		t.Fatalf("%s: no function %s", file, name)
	}
	return string(m)
}

// TestBuildCleanup runs build-kvm-image.sh's own cleanup functions: with
// their variables unset they do nothing; with the host's tree still
// bind-mounted in the chroot they unmount it first, so deleting the work
// directory never reaches the host's files.
func TestBuildCleanup(t *testing.T) {
	for _, tc := range []struct{ fn, vars string }{
		{"cleanup", `work="$1/work"; root="$work/root"`},
		{"cloud_cleanup", `cloud_work="$1/work"; cloud_root="$cloud_work/root"`},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			body := scriptFunc(t, "build-kvm-image.sh", tc.fn)
			dir, keep := hostTree(t)
			out, err := inMountNS(t, dir, body+"\n"+tc.fn)
			if err != nil {
				t.Errorf("%s with its variables unset: %v\n%s", tc.fn, err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "work", "root", "dev")); err != nil {
				t.Fatalf("%s with its variables unset deleted something: %v", tc.fn, err)
			}
			out, err = inMountNS(t, dir, body+"\n"+tc.vars+`
mount --bind "$1/host" "$1/work/root/dev" && mount -t tmpfs none "$1/work/root/proc" && `+tc.fn+` && ! findmnt -rn -o TARGET | grep -F "$1/work"`)
			if err != nil {
				t.Errorf("%s: %v\n%s", tc.fn, err, out)
			}
			if _, err := os.Stat(keep); err != nil {
				t.Fatalf("%s deleted the bind-mounted host tree's file: %v\n%s", tc.fn, err, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "work")); !os.IsNotExist(err) {
				t.Errorf("%s left its work directory: %v", tc.fn, err)
			}
		})
	}
}

// TestCITrapRemovesCache runs .ci/run's EXIT trap over a KVM image cache
// whose chroot still has a tmpfs and a directory of the "host" bind-mounted
// in it, as a build killed half-way leaves /dev, /proc and /sys: the trap
// must unmount them before it removes the cache, so their files survive,
// and leave no mount and no cache behind. The mounts live in the test's
// private mount namespace and go with it; the test checks none leaked.
func TestCITrapRemovesCache(t *testing.T) {
	b, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^trap '([^']*)' EXIT$`).FindSubmatch(b)
	if m == nil {
		t.Fatal(".ci/run has no EXIT trap of the form trap '…' EXIT")
	}
	if !regexp.MustCompile(`(?m)^\. scripts/safe-rm\.sh$`).Match(b) {
		t.Error(".ci/run does not source scripts/safe-rm.sh, whose functions its trap may use")
	}
	dir, keep := hostTree(t)
	out, err := inMountNS(t, dir, `trap_cmd=$2
export LAB_KVM_CACHE="$1/cache"
root="$LAB_KVM_CACHE/.build.x/root"
mkdir -p "$1/tmpfs" "$root/dev" "$root/proc" &&
mount -t tmpfs ownertmp "$1/tmpfs" && echo kept >"$1/tmpfs/keep" &&
mount --bind "$1/tmpfs" "$root/dev" && mount --bind "$1/host" "$root/proc" || exit 9
( eval "$trap_cmd" ); echo "trap exited $?"
cat "$1/tmpfs/keep" || echo "the tmpfs lost its file"
findmnt -rn -o TARGET | grep -F "$1/cache" && echo "still mounted"
[ -e "$LAB_KVM_CACHE" ] && echo "the cache is still there"
true`, string(m[1]))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, bad := range []string{"lost its file", "still mounted", "still there"} {
		if strings.Contains(out, bad) {
			t.Errorf("after the trap %s: %s", string(m[1]), bad)
		}
	}
	if !strings.Contains(out, "trap exited 0") || !strings.Contains(out, "kept") {
		t.Errorf("the trap failed or the tmpfs's file is gone:\n%s", out)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the trap deleted the bind-mounted host tree's file: %v\n%s", err, out)
	}
	if mounts, _ := exec.Command("findmnt", "-rn", "-o", "TARGET").Output(); strings.Contains(string(mounts), dir) {
		t.Errorf("mounts of the test leaked out of its namespace:\n%s", mounts)
	}
}

// fakeVirsh answers as virsh does against a daemon that holds one
// lab-tagged domain and one lab-* network (a system libvirtd someone else
// runs); it logs every call, one line each, to $VIRSH_LOG. virsh exits 0
// on success (tools/virsh.c: vshCommandRun's result), and `list --name`
// and `net-list --name` print one name a line.
const fakeVirsh = `#!/bin/sh
echo "$*" >>"$VIRSH_LOG"
for a in "$@"; do
  case $a in
    list) echo other-s; exit 0 ;;
    net-list) echo lab-other; exit 0 ;;
  esac
done
exit 0
`

// TestHarnessStopLeavesOtherDaemons: `harness.sh stop` against a libvirtd
// that is not the one its start started (here: no pid file of a libvirtd
// in its namespace, as with a system libvirtd) destroys, undefines and
// net-destroys nothing there (issue 20, section 5).
func TestHarnessStopLeavesOtherDaemons(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "virsh"), []byte(fakeVirsh), 0o755); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "virsh.log")
	cmd := exec.Command("bash", "../test/kvm/harness.sh", "stop")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "VIRSH_LOG="+calls,
		// A namespace that does not exist: no libvirtd is in it.
		"LAB_KVM_NETNS=labkvm-absent-"+filepath.Base(dir), "LAB_KVM_POOLDIR="+filepath.Join(dir, "pool"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("harness.sh stop: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "is not this harness's: its domains, networks and pools are left alone") {
		t.Errorf("stop does not say it leaves the daemon alone:\n%s", out)
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatalf("virsh was never called: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		for _, verb := range []string{"destroy", "undefine", "net-destroy", "net-undefine", "pool-destroy", "pool-undefine"} {
			if strings.Contains(" "+line+" ", " "+verb+" ") {
				t.Errorf("stop ran virsh %s on a daemon not its own", line)
			}
		}
	}
}

// TestScriptsUsersRunAreExecutable: the scripts the README tells users to
// run by path (and the harness runs) are executable in the repository, so
// a fresh clone can run them (CI once failed: "start-libvirtd.sh:
// Permission denied"). safe-rm.sh is sourced, not run.
func TestScriptsUsersRunAreExecutable(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-s", "--", ".", "../test/kvm", "../.ci").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	modes := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 4 {
			modes[filepath.Base(f[3])] = f[0]
		}
	}
	for _, name := range rootScripts {
		base := filepath.Base(name)
		if base == "safe-rm.sh" {
			continue
		}
		if modes[base] != "100755" {
			t.Errorf("%s has mode %q in git, want 100755: git update-index --chmod=+x %s", base, modes[base], name)
		}
	}
}
