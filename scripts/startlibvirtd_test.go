package scripts

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fakeDaemon is libvirtd's and virtlogd's command line as the script uses
// it (`NAME -d -p PIDFILE`: daemonise, write the pid file; libvirtd(8),
// virtlogd(8)): it starts a copy of sleep named NAME (so /proc/PID/comm
// is NAME), detached from the caller's output, and writes its pid.
const fakeDaemon = `#!/bin/sh
name=$(basename "$0")
[ "$1" = -d ] && [ "$2" = -p ] || { echo "$name: want -d -p PIDFILE, got $*" >&2; exit 2; }
"$FAKE_DAEMONS/$name" 300 </dev/null >/dev/null 2>&1 &
echo $! >"$3"
`

// fakeVirshVersion is virsh against a daemon that answers (exit 0) while
// the libvirtd of the pid file lives (not a zombie: this machine's init
// does not reap), and fails to connect otherwise (exit 1, as virsh does:
// tools/virsh.c).
const fakeVirshVersion = `#!/bin/sh
pid=$(cat "$LAB_LIBVIRTD_PIDDIR/libvirtd.pid" 2>/dev/null) && [ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" = S ] && exit 0
echo "error: failed to connect to the hypervisor" >&2
exit 1
`

type startEnv struct {
	dir, piddir string
	env         []string
}

func newStartEnv(t *testing.T) startEnv {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("start-libvirtd.sh runs as root only")
	}
	dir := t.TempDir()
	bin, daemons, piddir := filepath.Join(dir, "bin"), filepath.Join(dir, "daemons"), filepath.Join(dir, "run")
	for _, d := range []string{bin, daemons, piddir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"libvirtd", "virtlogd"} {
		if err := os.WriteFile(filepath.Join(daemons, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), []byte(fakeDaemon), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "virsh"), []byte(fakeVirshVersion), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "libvirt", "libvirt-sock")
	if err := os.Mkdir(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	e := startEnv{dir: dir, piddir: piddir, env: append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_DAEMONS="+daemons,
		"LAB_LIBVIRTD_PIDDIR="+piddir, "LAB_LIBVIRTD_STATE="+filepath.Join(dir, "state"), "LAB_LIBVIRTD_SOCKET="+sock)}
	t.Cleanup(func() { // whatever a failed test left running
		for _, name := range []string{"libvirtd", "virtlogd"} {
			if pid := e.pid(name); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return e
}

func (e startEnv) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"start-libvirtd.sh"}, args...)...)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// pid is the live process of name's pid file, 0 without one.
func (e startEnv) pid(name string) int {
	b, err := os.ReadFile(filepath.Join(e.piddir, name+".pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err != nil || strings.TrimSpace(string(comm)) != name {
		return 0
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || strings.Fields(string(stat))[2] == "Z" {
		return 0 // a zombie: this machine's init does not reap
	}
	return pid
}

// TestStartLibvirtd: start starts virtlogd and libvirtd, waits for the
// daemon to answer on its socket and says how to stop them; a second
// start reuses them; stop stops those two and nothing else.
func TestStartLibvirtd(t *testing.T) {
	e := newStartEnv(t)
	out, err := e.run(t, "start")
	if err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	logd, daemon := e.pid("virtlogd"), e.pid("libvirtd")
	if logd == 0 || daemon == 0 {
		t.Fatalf("start left virtlogd %d, libvirtd %d running:\n%s", logd, daemon, out)
	}
	for _, want := range []string{"started virtlogd (pid " + strconv.Itoa(logd) + ")", "started libvirtd (pid " + strconv.Itoa(daemon) + ")",
		"answers on qemu:///system (socket " + e.dir + "/libvirt/libvirt-sock)", "start-libvirtd.sh stop", "kill " + strconv.Itoa(logd) + " " + strconv.Itoa(daemon)} {
		if !strings.Contains(out, want) {
			t.Errorf("start does not say %q:\n%s", want, out)
		}
	}
	out, err = e.run(t)
	if err != nil || strings.Count(out, "already runs") != 2 || strings.Contains(out, "started virtlogd") || strings.Contains(out, "started libvirtd") {
		t.Errorf("second start: %v, want both reused:\n%s", err, out)
	}
	out, err = e.run(t, "stop")
	if err != nil || !strings.Contains(out, "stopped libvirtd") || !strings.Contains(out, "stopped virtlogd") {
		t.Errorf("stop: %v\n%s", err, out)
	}
	if e.pid("virtlogd") != 0 || e.pid("libvirtd") != 0 {
		t.Errorf("stop left a daemon running")
	}
	if out, err := e.run(t, "status"); err == nil {
		t.Errorf("status after stop: exit 0\n%s", out)
	}
}

// A libvirtd the script did not start (a pid file it did not write) is
// reused by start and left alone by stop.
func TestStartLibvirtdLeavesOthers(t *testing.T) {
	e := newStartEnv(t)
	for _, name := range []string{"virtlogd", "libvirtd"} {
		cmd := exec.Command("sh", "-c", name+` -d -p "$LAB_LIBVIRTD_PIDDIR/`+name+`.pid"`)
		cmd.Env = e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	other := e.pid("libvirtd")
	out, err := e.run(t, "start")
	if err != nil || strings.Count(out, "already runs") != 2 || strings.Contains(out, "to stop what this started") {
		t.Errorf("start beside running daemons: %v\n%s", err, out)
	}
	out, err = e.run(t, "stop")
	if err != nil || !strings.Contains(out, "nothing to stop") {
		t.Errorf("stop: %v\n%s", err, out)
	}
	if other == 0 || e.pid("libvirtd") != other {
		t.Errorf("stop touched a libvirtd it did not start (pid %d)", other)
	}
}

// The KVM harness starts its daemon with start-libvirtd.sh, not a copy of
// its commands: the README's recipe is then what TestKVM runs.
func TestHarnessUsesStartLibvirtd(t *testing.T) {
	b, err := os.ReadFile("../test/kvm/harness.sh")
	if err != nil {
		t.Fatal(err)
	}
	start := scriptFunc(t, "../test/kvm/harness.sh", "start")
	if !strings.Contains(start, `"$repo/scripts/start-libvirtd.sh" start -n "$NS" -H`) {
		t.Errorf("harness.sh start does not run scripts/start-libvirtd.sh:\n%s", start)
	}
	for _, own := range []string{"libvirtd -d", "virtlogd -d"} {
		if strings.Contains(string(b), own) {
			t.Errorf("harness.sh runs %q itself instead of through start-libvirtd.sh", own)
		}
	}
}

// -H (the harness's way) runs libvirtd in a private mount namespace in
// which /etc/libvirt/qemu.conf is the script's copy with namespaces off
// and /dev/kvm an unreadable file; this namespace's files are untouched.
func TestStartLibvirtdHidesKVM(t *testing.T) {
	e := newStartEnv(t)
	if _, err := os.Stat("/etc/libvirt/qemu.conf"); err != nil {
		t.Skip("no /etc/libvirt/qemu.conf (libvirt-daemon-system)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	out, err := e.run(t, "start", "-H")
	if err != nil || !strings.Contains(out, "/dev/kvm hidden") {
		t.Fatalf("start -H: %v\n%s", err, out)
	}
	pid := e.pid("libvirtd")
	mounts, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" /etc/libvirt/qemu.conf ", " /dev/kvm "} {
		if want == " /dev/kvm " {
			if _, err := os.Stat("/dev/kvm"); err != nil {
				continue
			}
		}
		if !strings.Contains(string(mounts), want) {
			t.Errorf("libvirtd's mount namespace has no mount at%s", want)
		}
	}
	conf, err := os.ReadFile(filepath.Join(e.dir, "state", "qemu.conf"))
	if err != nil || !strings.HasSuffix(string(conf), "\nnamespaces = [ ]\n") {
		t.Errorf("libvirtd's qemu.conf: %v\n%s", err, conf)
	}
	if own, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(own), " /etc/libvirt/qemu.conf ") {
		t.Errorf("the bind mount leaked into this namespace")
	}
	if out, err := e.run(t, "stop"); err != nil {
		t.Errorf("stop: %v\n%s", err, out)
	}
}

// -n NETNS starts both daemons inside that network namespace.
func TestStartLibvirtdInNamespace(t *testing.T) {
	e := newStartEnv(t)
	ns := "labsl-" + strconv.Itoa(os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Skipf("ip netns add: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	out, err := e.run(t, "start", "-n", ns)
	if err != nil || !strings.Contains(out, "in network namespace "+ns) {
		t.Fatalf("start -n: %v\n%s", err, out)
	}
	want, err := os.Stat("/run/netns/" + ns)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"virtlogd", "libvirtd"} {
		got, err := os.Stat("/proc/" + strconv.Itoa(e.pid(name)) + "/ns/net")
		if err != nil || !os.SameFile(got, want) {
			t.Errorf("%s runs outside namespace %s: %v", name, ns, err)
		}
	}
	if out, err := e.run(t, "stop"); err != nil {
		t.Errorf("stop: %v\n%s", err, out)
	}
	if out, err := e.run(t, "start", "-n", ns+"-absent"); err == nil || !strings.Contains(out, "no network namespace") {
		t.Errorf("start in a missing namespace: %v\n%s", err, out)
	}
}
