package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/libvirt"
)

// The KVM suite: a private libvirtd in a network namespace (test/kvm/
// harness.sh), two real Debian guests under QEMU/TCG from the image that
// scripts/build-kvm-image.sh makes, configured over SSH, iperf3 between
// them. It needs root and the packages .ci/run installs; it skips without
// them, except under CI=true, where a skip would hide a broken harness.

type kvmEnv struct{ ns, pool, key, image string }

func kvmHarness(t testing.TB) kvmEnv {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	if os.Geteuid() != 0 {
		fail("KVM suite needs root")
	}
	for _, b := range []string{"libvirtd", "virsh", "qemu-system-x86_64", "debootstrap", "dnsmasq"} {
		if _, err := exec.LookPath(b); err != nil {
			fail("KVM suite needs %s (see .ci/run for the packages)", b)
		}
	}
	// One suite at a time per machine: the harness's daemon, namespace and
	// pool are shared, and a second suite's `harness.sh stop` would pull
	// them from under the first. The lock is held until the suite ends.
	if err := os.MkdirAll("/run/lab-kvm", 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile("/run/lab-kvm/suite.lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Logf("another KVM suite runs on this machine: waiting for it")
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatalf("lock /run/lab-kvm/suite.lock: %v", err)
		}
	}
	t.Cleanup(func() { lock.Close() }) // closing releases the lock, after the harness stop below (cleanups run last-in first-out)
	harness, _ := filepath.Abs("../../test/kvm/harness.sh")
	// Stop runs also after a start that failed half-way (a namespace made,
	// no daemon): it removes only what the harness made.
	t.Cleanup(func() {
		if out, err := exec.Command(harness, "stop").CombinedOutput(); err != nil {
			t.Errorf("harness stop: %v\n%s", err, out)
		}
	})
	out, err := exec.Command(harness, "start").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		fail("KVM harness did not start: %v\n%s", err, stderr)
	}
	env := kvmEnv{}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "LAB_KVM_NETNS":
			env.ns = v
		case "LAB_KVM_POOL":
			env.pool = v
		case "LAB_KVM_KEY":
			env.key = v
		case "LAB_KVM_IMAGE":
			env.image = v
		}
	}
	return env
}

// kvmLab copies the jumbo example under a lab and pair name of its own.
func kvmLab(t testing.TB, name, pair string) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/kvm-virtio-jumbo/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := strings.NewReplacer(`lab "kvm-virtio-jumbo"`, `lab "`+name+`"`, `pair "jumbo"`, `pair "`+pair+`"`,
		`pair.jumbo`, `pair.`+pair, `pair = "jumbo"`, `pair = "`+pair+`"`).Replace(string(src))
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// kvmNames are the names a saved plan gives the lab's objects.
type kvmNames struct {
	File    string // the saved plan
	Lineage string
	Group   string // the link's name: every object's name starts with it
	Server  string
	Client  string
}

// kvmPlan saves a plan in dir and reads the names it gives the objects:
// `lab apply FILE` creates exactly those.
func kvmPlan(t testing.TB, e kvmEnv, dir string, vars ...string) kvmNames {
	t.Helper()
	file := filepath.Join(dir, "lab.plan")
	return kvmPlanNames(t, e.cmd(dir, append([]string{"plan", "-json", "-out", file}, e.vars(vars...)...)...), file)
}

// kvmPlanNames runs cmd, a `lab plan -json -out file`, and reads the
// names of the plan's one group.
func kvmPlanNames(t testing.TB, cmd *exec.Cmd, file string) kvmNames {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	var p struct {
		Lineage string `json:"lineage"`
		Groups  []struct {
			Link           struct{ Name string }
			Server, Client struct{ Name string }
		} `json:"groups"`
	}
	if err := json.Unmarshal(out, &p); err != nil || len(p.Groups) != 1 {
		t.Fatalf("plan -json: %v (%d groups)\n%s", err, len(p.Groups), out)
	}
	g := p.Groups[0]
	return kvmNames{File: file, Lineage: p.Lineage, Group: g.Link.Name, Server: g.Server.Name, Client: g.Client.Name}
}

func (e kvmEnv) cmd(dir string, args ...string) *exec.Cmd {
	argv := append([]string{"netns", "exec", e.ns, labBin, "-chdir=" + dir}, args...)
	return exec.Command("ip", argv...)
}

func (e kvmEnv) vars(extra ...string) []string {
	v := []string{"-var", "accel=tcg", "-var", "pool=" + e.pool, "-var", "ssh_key=" + e.key}
	for _, x := range extra {
		v = append(v, "-var", x)
	}
	return v
}

func virsh(t testing.TB, args ...string) []string {
	t.Helper()
	out, err := exec.Command("virsh", append([]string{"-q", "-c", "qemu:///system"}, args...)...).Output()
	if err != nil {
		t.Fatalf("virsh %v: %v", args, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// virshDo runs virsh for a side effect; ok reports success.
func virshDo(args ...string) (out string, ok bool) {
	b, err := exec.Command("virsh", append([]string{"-q", "-c", "qemu:///system"}, args...)...).CombinedOutput()
	return string(b), err == nil
}

// leftovers lists the domains, overlays and networks in the daemon whose
// names start with group (a plan's link name: lab, pair and a hash of
// lab, workspace and address), except those named in keep.
func leftovers(t testing.TB, e kvmEnv, group string, keep ...string) []string {
	var left []string
	add := func(kind, name string) {
		for _, k := range keep {
			if k == name {
				return
			}
		}
		left = append(left, kind+" "+name)
	}
	for _, d := range virsh(t, "list", "--all", "--name") {
		if strings.HasPrefix(d, group+"-") {
			add("domain", d)
		}
	}
	for _, v := range virsh(t, "vol-list", e.pool) {
		if strings.HasPrefix(v, group+"-") {
			add("volume", v)
		}
	}
	for _, n := range virsh(t, "net-list", "--all", "--name") {
		if strings.HasPrefix(n, "lab-"+group) {
			add("network", n)
		}
	}
	return left
}

// TestKVM shares guest boots between cases (a boot under TCG costs most of
// the suite's time): the jumbo lab's guests, kept after its apply, serve a
// second apply in which one of them is destroyed mid-run; the lab whose old
// names collide with the jumbo lab's boots beside it and is the wrong-OS
// case too. The other cases stop before or early in a boot.
func TestKVM(t *testing.T) {
	e := kvmHarness(t)

	t.Run("ownership: objects with lab's names that are not lab's are refused, never recorded, and survive", func(t *testing.T) {
		kvmOwnership(t, e)
	})

	t.Run("remote libvirt: qemu+ssh to the host through a real sshd, guests by jump", func(t *testing.T) {
		kvmRemote(t, e)
	})

	t.Run("a libvirtd that stops answering mid-session fails the call within call_timeout", func(t *testing.T) {
		kvmDaemonStopsAnswering(t)
	})

	t.Run("network destroyed while booting fails at once", func(t *testing.T) {
		kvmNetworkGone(t, e)
	})

	t.Run("killed between steps: a create or delete stopped by SIGKILL leaves only tagged objects, which destroy finds", func(t *testing.T) {
		kvmKilledBetweenSteps(t, e)
	})

	t.Run("network destroyed mid-run fails the run within seconds, naming the network", func(t *testing.T) {
		kvmNetworkGoneMidRun(t, e)
	})

	t.Run("jumbo frames end to end, beside a lab whose old names collide (on the wrong OS); then a guest destroyed mid-run", func(t *testing.T) {
		// Lab "kvm" with pair "e2e-jumbo" and lab "kvm-e2e" with pair
		// "jumbo" were both "kvm-e2e-jumbo" once. Both boot at once; the
		// first declares a FreeBSD template on the Linux image and must fail
		// its OS check right after SSH answers, naming the template.
		wrongDir := kvmLab(t, "kvm", "e2e-jumbo")
		kvmSetOS(t, wrongDir, "freebsd")
		wrong := kvmPlan(t, e, wrongDir)
		wrongCmd := e.cmd(wrongDir, "apply", "-auto-approve", wrong.File)
		var wrongOut bytes.Buffer
		wrongCmd.Stdout, wrongCmd.Stderr = &wrongOut, &wrongOut
		if err := wrongCmd.Start(); err != nil {
			t.Fatal(err)
		}
		wrongDone := make(chan error, 1)
		go func() { wrongDone <- wrongCmd.Wait() }()
		defer func() {
			werr := <-wrongDone
			const want = `template "debian" says os = "freebsd", but the guest's uname -s answers Linux`
			if werr == nil || !strings.Contains(wrongOut.String(), want) {
				t.Errorf("the wrong-OS apply should fail saying %q: %v\n%s", want, werr, wrongOut.String())
			}
			if left := leftovers(t, e, wrong.Group); len(left) > 0 {
				t.Errorf("wrong-OS lab: left %v", left)
			}
		}()

		const id = "kvm-e2e"
		dir := kvmLab(t, id, "jumbo")
		names := kvmPlan(t, e, dir, "duration=5s")
		defer func() {
			if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
				t.Errorf("destroy: %v\n%s", err, out)
			}
			if left := leftovers(t, e, names.Group); len(left) > 0 {
				t.Errorf("left in libvirt: %v", left)
			}
		}()
		start := time.Now()
		cmd := e.cmd(dir, "apply", "-auto-approve", "-keep", "-json", names.File)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			t.Fatalf("apply: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		var ready time.Duration
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var ev struct {
				Type    string        `json:"type"`
				Address string        `json:"address"`
				Elapsed time.Duration `json:"elapsed_ns"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "created" &&
				(strings.HasSuffix(ev.Address, ".server") || strings.HasSuffix(ev.Address, ".client")) {
				ready = max(ready, ev.Elapsed)
			}
		}
		recs := loadRecords(t, dir)
		by := map[int][]float64{}
		for _, r := range recs {
			if r.Error != "" {
				t.Errorf("%s: %s", r.CellKey, r.Error)
				continue
			}
			if r.Observed.Server.MTU != r.Intent.Server.MTU || r.Observed.Client.MTU != r.Intent.Client.MTU {
				t.Errorf("%s: observed MTU %d/%d, asked %d", r.CellKey, r.Observed.Server.MTU, r.Observed.Client.MTU, r.Intent.Server.MTU)
			}
			if r.HostCPU == nil || r.HostCPU.Server.Source != "libvirt:cpu_time" || r.HostCPU.Client.BusyPct <= 0 {
				t.Errorf("%s: hypervisor CPU not measured: %+v", r.CellKey, r.HostCPU)
			}
			if in := r.Intent; in.LinkMTU != 9000 || in.NIC == nil || in.NIC.Model != "virtio" || in.VCPU != 1 || in.MemoryMiB != 768 {
				t.Errorf("%s: hardware not recorded: link MTU %d, NIC %+v, %d vCPU, %d MiB", r.CellKey, in.LinkMTU, in.NIC, in.VCPU, in.MemoryMiB)
			}
			by[r.Intent.Server.MTU] = append(by[r.Intent.Server.MTU], r.Metrics.ThroughputBps/1e9)
		}
		m1500, m9000 := kvmMedian(by[1500]), kvmMedian(by[9000])
		t.Logf("figures: both guests SSH-ready %v after create (four guests booting at once); whole apply %v", ready.Round(100*time.Millisecond),
			time.Since(start).Round(time.Second))
		t.Logf("figures: MTU 1500 %v Gb/s (median %.2f), MTU 9000 %v Gb/s (median %.2f)", by[1500], m1500, by[9000], m9000)
		if len(by[1500]) != 3 || len(by[9000]) != 3 {
			t.Fatalf("want 3 results per MTU, got %v", by)
		}
		if !(m9000 > m1500) {
			t.Errorf("MTU 9000 median %.2f Gb/s is not above MTU 1500 median %.2f Gb/s", m9000, m1500)
		}
		kvmLockPinsImage(t, e, dir)
		kvmGuestGone(t, e, dir, names)
	})

	t.Run("vmxnet3 vs virtio: the pinned bundle reproduced in the harness, QEMU's vmxnet3 beside virtio-net", func(t *testing.T) {
		kvmVmxnet3(t, e)
	})

	t.Run("two NICs on q35, pinned: SSH over the management NIC, iperf3 over the link", func(t *testing.T) {
		kvmTwoNIC(t, e)
	})

	t.Run("routed pair: client → router guest → server on two lab networks", func(t *testing.T) {
		kvmRouted(t, e)
	})

	t.Run("link_bridge: a host bridge lab does not own, MTU checked, addresses set over SSH", func(t *testing.T) {
		kvmHostDevice(t, e, "bridge")
	})

	t.Run("link_macvtap: macvtap on a host device lab does not own, MTU checked, addresses set over SSH", func(t *testing.T) {
		kvmHostDevice(t, e, "macvtap")
	})

	t.Run("cross pair: a libvirt guest on a host bridge against a hosts machine on it", func(t *testing.T) {
		kvmCrossHosts(t, e)
	})

	t.Run("cloud-init: a cloud image without a baked key, seeded by lab", func(t *testing.T) {
		kvmCloudInit(t, e)
	})

	t.Run("no lease: clear error, both guests removed", func(t *testing.T) {
		dir := kvmLab(t, "kvm-nolease", "jumbo")
		names := kvmPlan(t, e, dir, "lease_timeout=3s")
		out, err := e.cmd(dir, "apply", "-auto-approve", names.File).CombinedOutput()
		if err == nil {
			t.Fatalf("apply succeeded without leases:\n%s", out)
		}
		if !strings.Contains(string(out), "no DHCP lease") || !strings.Contains(string(out), "lease_timeout") {
			t.Errorf("error does not say what happened:\n%s", out)
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("left after a failed apply: %v", left)
		}
	})

	t.Run("SIGINT while booting, kill -9 then destroy", func(t *testing.T) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
			dir := kvmLab(t, "kvm-sig"+map[syscall.Signal]string{syscall.SIGINT: "int", syscall.SIGKILL: "kill"}[sig], "jumbo")
			names := kvmPlan(t, e, dir)
			cmd := e.cmd(dir, "apply", "-auto-approve", names.File)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Both domains are defined and booting well before 8 s.
			time.Sleep(8 * time.Second)
			_ = cmd.Process.Signal(sig) // ip netns exec execs lab: the process is lab itself
			if err := cmd.Wait(); err == nil {
				t.Errorf("%v: apply exited 0", sig)
			}
			if sig == syscall.SIGINT {
				if left := leftovers(t, e, names.Group); len(left) > 0 {
					t.Errorf("SIGINT: apply left %v\n%s", left, out.String())
				}
			}
			if dout, derr := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); derr != nil {
				t.Fatalf("%v: destroy: %v\n%s", sig, derr, dout)
			}
			if left := leftovers(t, e, names.Group); len(left) > 0 {
				t.Errorf("%v: left after destroy: %v", sig, left)
			}
		}
	})
}

// kvmSetOS sets the template's os in dir's lab.hcl.
func kvmSetOS(t testing.TB, dir, os_ string) {
	t.Helper()
	spec := filepath.Join(dir, "lab.hcl")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spec, []byte(strings.Replace(string(b), `os     = "linux"`, `os     = "`+os_+`"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// kvmOwnership: a network, an overlay volume and a domain made by hand
// under the names lab would use are each refused by apply, at once and
// naming the object; nothing of them enters the state (destroy and
// destroy -orphans exit 0) and they survive. Networks tagged for another
// lab whose name starts with this one's survive an orphan sweep; one
// tagged for this lab and workspace is swept. Only the overlay and domain
// cases boot (and cancel) a client guest.
func kvmOwnership(t *testing.T, e kvmEnv) {
	const id = "kvm-own"
	dir := kvmLab(t, id, "jumbo")
	tmp := t.TempDir()
	xmlFile := func(name, body string) string {
		f := filepath.Join(tmp, name+".xml")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	names := kvmPlan(t, e, dir)
	cases := []struct {
		kind, name string // as the refusal names it
		keep       string // as leftovers lists it
		make       []string
		exists     []string
		remove     []string
	}{
		{kind: "network", name: "lab-" + names.Group, keep: "lab-" + names.Group,
			make:   []string{"net-create", xmlFile("net", "<network><name>lab-"+names.Group+"</name><bridge name='labhand0' stp='off' delay='0'/></network>")},
			exists: []string{"net-info", "lab-" + names.Group}, remove: []string{"net-destroy", "lab-" + names.Group}},
		{kind: "volume", name: e.pool + "/" + names.Server + ".qcow2", keep: names.Server + ".qcow2",
			make:   []string{"vol-create-as", e.pool, names.Server + ".qcow2", "1M", "--format", "qcow2"},
			exists: []string{"vol-info", "--pool", e.pool, names.Server + ".qcow2"}, remove: []string{"vol-delete", "--pool", e.pool, names.Server + ".qcow2"}},
		{kind: "domain", name: names.Server, keep: names.Server,
			make: []string{"define", xmlFile("dom", "<domain type='qemu'><name>"+names.Server+"</name><memory unit='MiB'>64</memory>"+
				"<os><type arch='x86_64'>hvm</type></os><devices><emulator>/usr/bin/qemu-system-x86_64</emulator></devices></domain>")},
			exists: []string{"dominfo", names.Server}, remove: []string{"undefine", names.Server}},
	}
	for i, c := range cases {
		if i > 0 {
			// The state kept the workspace: a new plan names everything alike.
			next := kvmPlan(t, e, dir)
			if next.Group != names.Group || next.Server != names.Server {
				t.Fatalf("second plan names %s/%s, first %s/%s", next.Group, next.Server, names.Group, names.Server)
			}
		}
		if out, ok := virshDo(c.make...); !ok {
			t.Fatalf("make a %s by hand: %s", c.kind, out)
		}
		func() {
			defer virshDo(c.remove...)
			start := time.Now()
			out, err := e.cmd(dir, "apply", "-auto-approve", names.File).CombinedOutput()
			took := time.Since(start)
			want := c.kind + " " + c.name + " is not this lab's"
			if err == nil || !strings.Contains(string(out), want) {
				t.Errorf("%s: apply should fail saying %q: %v\n%s", c.kind, want, err, out)
			}
			t.Logf("figures: a hand-made %s refused, apply done in %v", c.kind, took.Round(100*time.Millisecond))
			for _, args := range [][]string{{"destroy", "-auto-approve"}, {"destroy", "-auto-approve", "-orphans"}} {
				if out, err := e.cmd(dir, args...).CombinedOutput(); err != nil {
					t.Errorf("%s: %v after the refusal: %v\n%s", c.kind, args, err, out)
				}
			}
			if out, ok := virshDo(c.exists...); !ok {
				t.Errorf("the hand-made %s %s is gone: %s", c.kind, c.name, out)
			}
			if left := leftovers(t, e, names.Group, c.keep); len(left) > 0 {
				t.Errorf("%s: lab's own objects left: %v", c.kind, left)
			}
		}()
	}

	// Orphan sweeps match the tag exactly: lab "kvm-own-g" in the same
	// workspace is not lab "kvm-own"; this lab's own orphan goes.
	ws := state.Workspace(names.Lineage)
	tagged := func(name, bridge string, o machine.Owner) string {
		return xmlFile(name, "<network><name>"+name+"</name><metadata><lab xmlns='"+libvirt.MetadataNS+"'><tag>"+o.Tag("pair.jumbo.link")+
			"</tag></lab></metadata><bridge name='"+bridge+"' stp='off' delay='0'/></network>")
	}
	other, orphan := "lab-"+id+"-g-jumbo-000000", "lab-"+names.Group+"-orphan"
	for _, n := range []struct{ name, bridge, lab string }{{other, "labhand1", id + "-g"}, {orphan, "labhand2", id}} {
		if out, ok := virshDo("net-create", tagged(n.name, n.bridge, machine.Owner{Lab: n.lab, Workspace: ws})); !ok {
			t.Fatalf("net-create %s: %s", n.name, out)
		}
		defer virshDo("net-destroy", n.name)
	}
	if out, err := e.cmd(dir, "destroy", "-auto-approve", "-orphans").CombinedOutput(); err != nil {
		t.Errorf("destroy -orphans: %v\n%s", err, out)
	}
	if _, ok := virshDo("net-info", other); !ok {
		t.Errorf("destroy -orphans of lab %q removed network %s of lab %q", id, other, id+"-g")
	}
	if _, ok := virshDo("net-info", orphan); ok {
		t.Errorf("destroy -orphans left lab %q's own orphan network %s", id, orphan)
	}
	kvmListRealOwner(t, tagged)
}

// kvmListRealOwner: the libvirt provider's List, asked for every workspace
// of a lab, returns each network with the workspace its own tag names —
// never the "*" it was asked with (issue 20, item 7).
func kvmListRealOwner(t *testing.T, tagged func(name, bridge string, o machine.Owner) string) {
	theirs := machine.Owner{Lab: "kvm-own", Workspace: "ffffffff"}
	name := "lab-kvm-own-otherws"
	if out, ok := virshDo("net-create", tagged(name, "labhand3", theirs)); !ok {
		t.Fatalf("net-create %s: %s", name, out)
	}
	defer virshDo("net-destroy", name)
	p := libvirt.New()
	f, d := hclsyntax.ParseConfig([]byte(`accel = "tcg"`), "lab.hcl", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	if d := p.Configure(context.Background(), f.Body); d.HasErrors() {
		t.Fatal(d)
	}
	defer p.Close(context.Background())
	ins, err := p.List(context.Background(), machine.Owner{Lab: "kvm-own", Workspace: machine.AnyWorkspace})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, in := range ins {
		if in.Owner.Workspace == machine.AnyWorkspace {
			t.Errorf("listed %s %s with workspace %q, not its own", in.Kind, in.Name, in.Owner.Workspace)
		}
		if in.Kind == "link" && in.Name == strings.TrimPrefix(name, "lab-") {
			found = true
			if in.Owner != theirs {
				t.Errorf("network %s listed with owner %+v, want %+v", name, in.Owner, theirs)
			}
		}
	}
	if !found {
		t.Errorf("List(kvm-own, *) did not find network %s: %+v", name, ins)
	}
}

// kvmEvents starts cmd with -json output and calls on for each event, in
// its own goroutine; wait waits for both.
func kvmEvents(t testing.TB, cmd *exec.Cmd, on func(kvmEvent)) (wait func() (string, error)) {
	t.Helper()
	pr, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines.WriteString(sc.Text() + "\n")
			var ev kvmEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				on(ev)
			}
		}
	}()
	return func() (string, error) {
		<-done
		err := cmd.Wait()
		return lines.String() + stderr.String(), err
	}
}

type kvmEvent struct {
	Type    string        `json:"type"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Address string        `json:"address"`
	Message string        `json:"message"`
	Index   int           `json:"index"`
}

// kvmNetworkGone: the lab's network destroyed while the guests boot fails
// the apply within 5 s, saying so; nothing is left.
func kvmNetworkGone(t *testing.T, e kvmEnv) {
	dir := kvmLab(t, "kvm-netgone", "jumbo")
	names := kvmPlan(t, e, dir)
	cmd := e.cmd(dir, "apply", "-auto-approve", names.File)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for both domains to run, then pull the network from under them.
	for deadline := time.Now().Add(60 * time.Second); ; {
		running := virsh(t, "list", "--name")
		if strings.Contains(strings.Join(running, " "), names.Server) && strings.Contains(strings.Join(running, " "), names.Client) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the domains did not start:\n%s", out.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if o, ok := virshDo("net-destroy", "lab-"+names.Group); !ok {
		t.Fatalf("net-destroy: %s", o)
	}
	gone := time.Now()
	err := cmd.Wait()
	took := time.Since(gone)
	t.Logf("figures: network destroyed while booting: apply failed %v later", took.Round(100*time.Millisecond))
	if err == nil || !strings.Contains(out.String(), "network lab-"+names.Group+" is gone") {
		t.Errorf("apply should fail saying the network is gone: %v\n%s", err, out.String())
	}
	if took > 5*time.Second {
		t.Errorf("apply took %v after the network went, want <= 5s", took)
	}
	if left := leftovers(t, e, names.Group); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// kvmKilledBetweenSteps (issue 20, item 1): lab is killed (SIGKILL, no
// cleanup) at each point between two libvirt steps of a create — after a
// domain's definition, before its overlay; after the overlay, before the
// start — and of a delete — after a domain's volumes, before its
// undefinition. Each time, every object left in libvirt carries lab's tag
// (a domain lab's metadata; a volume only beside the tagged domain naming
// it), and a plain `lab destroy` then leaves nothing. No guest boots.
func kvmKilledBetweenSteps(t *testing.T, e kvmEnv) {
	run := func(dir, fault string, args ...string) string {
		cmd := e.cmd(dir, args...)
		cmd.Env = append(os.Environ(), libvirt.FaultEnv+"="+fault)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("%v with %s=%s: want lab killed there, got %v\n%s", args, libvirt.FaultEnv, fault, err, out)
		}
		return string(out)
	}
	// tagged checks that every domain left is lab's and every volume left
	// is named by such a domain; it returns what is left.
	tagged := func(names kvmNames) []string {
		left := leftovers(t, e, names.Group)
		doms := map[string]bool{}
		for _, l := range left {
			if d, ok := strings.CutPrefix(l, "domain "); ok {
				doms[d] = true
				if out, ok := virshDo("metadata", d, libvirt.MetadataNS); !ok || !strings.Contains(out, "lab/1 lab=kvm-fault ") {
					t.Errorf("domain %s left without lab's tag: %s", d, out)
				}
			}
		}
		for _, l := range left {
			if v, ok := strings.CutPrefix(l, "volume "); ok && !doms[strings.TrimSuffix(strings.TrimSuffix(v, ".qcow2"), "-cidata.iso")] {
				t.Errorf("volume %s left with no tagged domain naming it: nothing proves it lab's (left: %v)", v, left)
			}
		}
		return left
	}
	destroy := func(dir string, names kvmNames) {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy after the kill: %v\n%s", err, out)
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("destroy after the kill left %v", left)
		}
	}
	for _, fault := range []string{"libvirt-after-define", "libvirt-after-overlay"} {
		t.Run(fault, func(t *testing.T) {
			dir := kvmLab(t, "kvm-fault", "jumbo")
			names := kvmPlan(t, e, dir)
			run(dir, fault, "apply", "-auto-approve", names.File)
			left := tagged(names)
			t.Logf("killed at %s: left %v", fault, left)
			if !slices.ContainsFunc(left, func(s string) bool { return strings.HasPrefix(s, "domain ") }) {
				t.Errorf("killed at %s, no domain was left: the fault point was not reached (left %v)", fault, left)
			}
			destroy(dir, names)
		})
	}
	t.Run("libvirt-after-volumes-delete", func(t *testing.T) {
		dir := kvmLab(t, "kvm-fault", "jumbo")
		names := kvmPlan(t, e, dir)
		run(dir, "libvirt-after-overlay", "apply", "-auto-approve", names.File)
		run(dir, "libvirt-after-volumes-delete", "destroy", "-auto-approve")
		left := tagged(names)
		t.Logf("killed between a domain's volumes and its undefinition: left %v", left)
		destroy(dir, names)
	})
}

// kvmOneRun rewrites dir's spec to one run (MTU 1500, no expectations),
// as BenchmarkKVMBoot does.
func kvmOneRun(t testing.TB, dir string) {
	t.Helper()
	spec := filepath.Join(dir, "lab.hcl")
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	one := regexp.MustCompile(`(?s)\n  expect ".*?\n  }\n`).ReplaceAllString(string(src), "\n")
	one = strings.NewReplacer("repeat = 3", "repeat = 1", "mtu = [1500, 9000]", "mtu = [1500]").Replace(one)
	if err := os.WriteFile(spec, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
}

// kvmNetworkGoneMidRun: the lab's network destroyed while iperf3 runs
// (guests still running, cut off) fails the run within seconds, naming
// the network, instead of waiting for iperf3's own deadline (it once hung
// the apply 10 min 51 s); teardown leaves nothing.
func kvmNetworkGoneMidRun(t *testing.T, e kvmEnv) {
	dir := kvmLab(t, "kvm-netmid", "jumbo")
	kvmOneRun(t, dir)
	names := kvmPlan(t, e, dir, "duration=60s")
	var destroyed, failed time.Time
	wait := kvmEvents(t, e.cmd(dir, "apply", "-auto-approve", "-json", names.File), func(ev kvmEvent) {
		switch {
		case ev.Type == "run" && ev.Index == 1:
			time.Sleep(3 * time.Second) // the benchmark is under way
			if o, ok := virshDo("net-destroy", "lab-"+names.Group); !ok {
				t.Errorf("virsh net-destroy lab-%s: %s", names.Group, o)
			}
			destroyed = time.Now()
		case ev.Type == "run_failed" && ev.Index == 1:
			failed = time.Now()
		}
	})
	out, err := wait()
	if err == nil {
		t.Fatalf("apply succeeded with its network destroyed:\n%s", out)
	}
	if destroyed.IsZero() || failed.IsZero() {
		t.Fatalf("run 1 did not start or did not fail:\n%s", out)
	}
	took := failed.Sub(destroyed)
	t.Logf("figures: network destroyed mid-run: run 1 failed %v later (its benchmark lasts 60 s)", took.Round(100*time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("run 1 failed %v after its network was destroyed, want <= 10s", took)
	}
	want := regexp.MustCompile(`network lab-` + regexp.QuoteMeta(names.Group) + ` is (gone|not active) \(the link of domain ` + names.Server[:len(names.Server)-1] + `[sc]\) during run 1`)
	recs := loadRecords(t, dir)
	if len(recs) != 1 || !want.MatchString(recs[0].Error) {
		t.Errorf("want one record failed matching %q, got %+v\n%s", want, recs, out)
	}
	if left := leftovers(t, e, names.Group); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// kvmGuestGone: a second apply on dir reuses the kept guests; the client
// destroyed during run 2 fails that run within seconds, naming the domain
// and the run; the later runs are still tried (and fail at once the same
// way); teardown leaves nothing.
func kvmGuestGone(t *testing.T, e kvmEnv, dir string, names kvmNames) {
	var destroyed, failed time.Time
	reused := 0
	wait := kvmEvents(t, e.cmd(dir, append([]string{"apply", "-auto-approve", "-json"}, e.vars("duration=30s")...)...), func(ev kvmEvent) {
		switch {
		case ev.Type == "reuse":
			reused++
		case ev.Type == "run" && ev.Index == 2:
			time.Sleep(3 * time.Second) // the benchmark is under way
			if o, ok := virshDo("destroy", names.Client); !ok {
				t.Errorf("virsh destroy %s: %s", names.Client, o)
			}
			destroyed = time.Now()
		case ev.Type == "run_failed" && ev.Index == 2:
			failed = time.Now()
		}
	})
	out, err := wait()
	if err == nil {
		t.Fatalf("apply succeeded with its client destroyed:\n%s", out)
	}
	if reused < 2 {
		t.Errorf("the second apply reused %d objects, want the kept guests", reused)
	}
	if destroyed.IsZero() || failed.IsZero() {
		t.Fatalf("run 2 did not start or did not fail:\n%s", out)
	}
	took := failed.Sub(destroyed)
	t.Logf("figures: guest destroyed mid-run: run 2 failed %v later (its benchmark lasts 31 s)", took.Round(100*time.Millisecond))
	// About a second (the liveness watch's interval, then the dead guest's
	// transport is closed); the bound leaves room for a loaded machine.
	if took > 5*time.Second {
		t.Errorf("run 2 failed %v after its client was destroyed, want <= 5s", took)
	}
	if strings.Contains(out, "hypervisor CPU") {
		t.Errorf("a run cut short by a destroyed guest warned about its CPU measurement:\n%s", out)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 6 {
		t.Fatalf("%d records, want all 6 runs tried", len(recs))
	}
	// Run 1 succeeded; runs 2 to 6 each failed naming the domain, its state
	// (virsh destroy passes through "shutting down") and the run.
	stopped := regexp.MustCompile(`domain ` + regexp.QuoteMeta(names.Client) + ` (shut off|shutting down) during run ([2-6])\b`)
	ok, failedRuns := 0, map[string]bool{}
	for _, r := range recs {
		m := stopped.FindStringSubmatch(r.Error)
		switch {
		case r.Error == "":
			ok++
		case m != nil:
			failedRuns[m[2]] = true
		default:
			t.Errorf("%s #%d: error %q does not say the client stopped", r.CellKey, r.Repeat, r.Error)
		}
	}
	if ok != 1 || len(failedRuns) != 5 {
		t.Errorf("%d runs succeeded (want 1, the one before the destroy); runs %v failed naming the stopped client (want 2-6)", ok, failedRuns)
	}
	if left := leftovers(t, e, names.Group); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// BenchmarkKVMBoot measures P6 — lab's create → both guests SSH-ready,
// under QEMU/TCG on the image scripts/build-kvm-image.sh makes (target
// ≤ 15 s at load ≤ 2, twice that at load 8: kvmBootTarget) — and lab's
// slack (target ≤ 0.3 s): from the moment a guest could first be logged
// in to (its sshd listening and its DHCP address configured, both from
// the guest's journal) to lab's first login there (sshd's "Accepted
// publickey", same clock). The slack is split at sshd's "Connection
// from": before it, lab's next connect after the listen and sshd's fork
// for it; after it, key exchange and authentication in the emulated
// guest. It also prints where the rest went: the guest's own boot (its
// uptime at lab's login) and what came before the guest's kernel started
// (define, overlay, QEMU start, firmware), and the load average (its
// 1-minute figure before and after the apply, the higher one deciding the
// target) beside every figure. One 1-second run per iteration; the guests
// are then destroyed. LAB_KVM_BOOT_DETAIL=1 adds lab's trace and
// systemd-analyze.
func BenchmarkKVMBoot(b *testing.B) {
	e := kvmHarness(b)
	for i := 0; i < b.N; i++ {
		loadBefore := loadAvg()
		dir := kvmLab(b, fmt.Sprintf("kvm-boot%d", i), "jumbo")
		spec := filepath.Join(dir, "lab.hcl")
		src, err := os.ReadFile(spec)
		if err != nil {
			b.Fatal(err)
		}
		one := regexp.MustCompile(`(?s)\n  expect ".*?\n  }\n`).ReplaceAllString(string(src), "\n")
		one = strings.NewReplacer("repeat = 3", "repeat = 1", "mtu = [1500, 9000]", "mtu = [1500]").Replace(one)
		if err := os.WriteFile(spec, []byte(one), 0o644); err != nil {
			b.Fatal(err)
		}
		names := kvmPlan(b, e, dir, "duration=1s")
		ready := map[string]time.Duration{}
		apply := e.cmd(dir, "apply", "-auto-approve", "-keep", "-json", names.File)
		trace := filepath.Join(dir, "trace.log")
		detail := os.Getenv("LAB_KVM_BOOT_DETAIL") != ""
		if detail {
			apply.Env = append(os.Environ(), "LAB_LOG=trace", "LAB_LOG_PATH="+trace)
		}
		wait := kvmEvents(b, apply, func(ev kvmEvent) {
			if ev.Type == "created" && (strings.HasSuffix(ev.Address, ".server") || strings.HasSuffix(ev.Address, ".client")) {
				ready[ev.Address] = ev.Elapsed
			}
		})
		out, err := wait()
		loadAfter := loadAvg()
		st, lerr := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
		boots := map[string]kvmGuestBoot{}
		if lerr == nil {
			if tb, err := os.ReadFile(trace); err == nil && detail {
				for _, l := range strings.Split(string(tb), "\n") {
					if strings.Contains(l, "libvirt") {
						fmt.Println("kvm boot: trace:", l)
					}
				}
			}
			for _, r := range st.Resources {
				if r.Kind == "machine" && r.Endpoint != nil && r.Endpoint.SSHHost != "" {
					if g, err := kvmBootTimes(e, r.Endpoint.SSHHost, detail); err != nil {
						b.Error(err)
					} else {
						boots[r.Address] = g
					}
				}
			}
		}
		if dout, derr := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); derr != nil {
			b.Errorf("destroy: %v\n%s", derr, dout)
		}
		if err != nil || lerr != nil || len(ready) != 2 || len(boots) != 2 {
			b.Fatalf("apply: %v (state: %v), %d guests ready, %d boots read\n%s", err, lerr, len(ready), len(boots), out)
		}
		var p6, slack time.Duration
		for _, r := range st.Resources {
			if r.Kind != "machine" {
				continue
			}
			g := boots[r.Address]
			up, _ := strconv.ParseFloat(r.Attrs["guest_uptime_s"], 64)
			own := time.Duration(up * float64(time.Second))
			p6 = max(p6, ready[r.Address])
			slack = max(slack, g.slack())
			fmt.Printf("kvm boot: %s SSH-ready %.1fs after create: %.1fs before the guest's kernel started, guest up %.1fs at lab's probe; "+
				"in the guest: sshd listening %.2fs, address %.2fs, lab's connection %.2fs, its login accepted %.2fs "+
				"(slack %.2fs: %.2fs to sshd's \"Connection from\", %.2fs key exchange and authentication); load %s → %s\n",
				r.Address, ready[r.Address].Seconds(), (ready[r.Address] - own).Seconds(), own.Seconds(),
				g.sshd.Seconds(), g.address.Seconds(), g.connect.Seconds(), g.login.Seconds(), g.slack().Seconds(),
				(g.connect - max(g.sshd, g.address)).Seconds(), (g.login - g.connect).Seconds(), loadBefore, loadAfter)
		}
		b.ReportMetric(p6.Seconds(), "s-P6")
		b.ReportMetric(slack.Seconds(), "s-slack")
		load := max(loadOne(loadBefore), loadOne(loadAfter))
		target := kvmBootTarget(load)
		fmt.Printf("kvm boot: P6 %.1fs create → both SSH-ready (target %.1fs at load %.2f: %s), lab's slack %.2fs (target 0.3 s: %s); load %s → %s\n",
			p6.Seconds(), target.Seconds(), load, metOrNot(p6 <= target), slack.Seconds(), metOrNot(slack <= 300*time.Millisecond), loadBefore, loadAfter)
	}
}

// kvmBootTarget is P6's target at a load average: 15 s up to load 2, 30 s
// at load 8, in a straight line between (and on beyond 8): a user's
// machine is rarely idle, and two cores shared by eight runnable tasks
// give each emulated vCPU about a quarter of a core.
func kvmBootTarget(load float64) time.Duration {
	f := 1 + max(0, load-2)/6
	return time.Duration(15 * f * float64(time.Second))
}

// kvmGuestBoot is a guest's boot as its journal tells it, in seconds of its
// own uptime (CLOCK_MONOTONIC): when sshd listened, when networkd had the
// DHCP address, when sshd accepted lab's first login.
type kvmGuestBoot struct{ sshd, address, connect, login time.Duration }

// slack is lab's part: from the first moment a login could succeed to
// lab's first accepted login.
func (g kvmGuestBoot) slack() time.Duration { return g.login - max(g.sshd, g.address) }

// kvmJournalTime is journalctl -o short-monotonic's "[   12.345678] ".
var kvmJournalTime = regexp.MustCompile(`^\[\s*([0-9]+\.[0-9]+)\]`)

// kvmBootTimes reads a guest's boot from its journal, over SSH from the
// harness's namespace; with detail it also prints systemd-analyze.
func kvmBootTimes(e kvmEnv, host string, detail bool) (kvmGuestBoot, error) {
	script := "journalctl -b -o short-monotonic --no-pager -u ssh.service -u systemd-networkd.service"
	if detail {
		script += "; echo ==; systemd-analyze; systemd-analyze blame | head -15; systemd-analyze critical-chain ssh.service"
	}
	out, err := exec.Command("ip", "netns", "exec", e.ns, "ssh", "-i", e.key, "-o", "StrictHostKeyChecking=no",
		"-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "root@"+host, script).CombinedOutput()
	if err != nil {
		return kvmGuestBoot{}, fmt.Errorf("read the journal of %s: %v\n%s", host, err, out)
	}
	journal, rest, _ := strings.Cut(string(out), "\n==\n")
	if detail {
		fmt.Printf("kvm boot: %s:\n%s\n%s\n", host, journal, rest)
	}
	var g kvmGuestBoot
	at := func(line string) time.Duration {
		m := kvmJournalTime.FindStringSubmatch(line)
		if m == nil {
			return 0
		}
		f, _ := strconv.ParseFloat(m[1], 64)
		return time.Duration(f * float64(time.Second))
	}
	for _, l := range strings.Split(journal, "\n") {
		switch {
		case g.sshd == 0 && strings.Contains(l, "Server listening on 0.0.0.0 port 22"):
			g.sshd = at(l)
		case g.address == 0 && strings.Contains(l, "DHCPv4 address") && strings.Contains(l, "acquired"):
			g.address = at(l)
		case g.connect == 0 && strings.Contains(l, "Connection from "):
			g.connect = at(l) // sshd's LogLevel VERBOSE, as the image sets it
		case g.login == 0 && strings.Contains(l, "Accepted publickey"):
			g.login = at(l)
		}
	}
	if g.sshd == 0 || g.address == 0 || g.login == 0 {
		return g, fmt.Errorf("%s: the journal does not tell sshd's start, the DHCP address and lab's login:\n%s", host, journal)
	}
	return g, nil
}

// kvmLockPinsImage: the apply's lock file pins the SHA-256 of the base
// image the guests booted (computed here from the file itself); a plan
// whose template resolves to another image warns, naming the template.
// Only plans run here: nothing boots.
func kvmLockPinsImage(t *testing.T, e kvmEnv, dir string) {
	t.Helper()
	img, err := os.ReadFile(filepath.Join(e.image, "base.qcow2"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("sha256:%x", sha256.Sum256(img))
	lock, err := os.ReadFile(filepath.Join(dir, ".lab.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `template = "`+want+`"`) {
		t.Fatalf("lock file does not pin the image %s: %v\n%s", want, err, lock)
	}
	if out, err := e.cmd(dir, append([]string{"plan"}, e.vars()...)...).CombinedOutput(); err != nil || strings.Contains(string(out), "changed since") {
		t.Errorf("plan with the same image: %v\n%s", err, out)
	}
	const other = "lock-changed.qcow2"
	if out, err := exec.Command("virsh", "-c", "qemu:///system", "vol-create-as", e.pool, other, "1M", "--format", "raw").CombinedOutput(); err != nil {
		t.Fatalf("vol-create-as: %v\n%s", err, out)
	}
	defer exec.Command("virsh", "-c", "qemu:///system", "vol-delete", other, "--pool", e.pool).Run()
	out, err := e.cmd(dir, append([]string{"plan"}, e.vars("image="+other)...)...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `template "debian" of pair.jumbo.server changed`) || !strings.Contains(string(out), want) {
		t.Errorf("plan with another image should warn naming the template: %v\n%s", err, out)
	}
}

func kvmMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// kvmTwoNIC applies examples/kvm-q35-pinned (management NIC, q35, cpu_pin)
// with one short run and checks, from inside the guests, that SSH came in
// over the management NIC and iperf3 ran over the benchmark link at the
// link's MTU; the domains are q35 with the asked <cputune>; teardown
// leaves no domain, volume or network (the management network included).
// Before that, a plan that pins a CPU the host lacks fails at its line
// (nothing boots for it).
func kvmTwoNIC(t *testing.T, e kvmEnv) {
	src, err := os.ReadFile("../../examples/kvm-q35-pinned/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The guests also shrink their virtio rings (ethtool -G: Linux 6.0+
	// resizes a virtio-net ring through VIRTIO_F_RING_RESET, which QEMU
	// 7.2 offers by default, queue_reset=on), below the 256 QEMU gives.
	body := strings.NewReplacer(`lab "kvm-q35-pinned"`, `lab "kvm-2nic"`, "repeat = 3", "repeat = 1",
		"  guest {\n    mtu = 9000\n", "  guest {\n    mtu     = 9000\n    rx_ring = 128\n    tx_ring = 128\n").Replace(string(src))
	if !strings.Contains(body, "rx_ring = 128") {
		t.Fatal("examples/kvm-q35-pinned changed: no guest { mtu = 9000 } block to add ring sizes to")
	}
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	pin := []string{"server_cpus=0", "client_cpus=1", "emulator_cpus=0-1", "duration=3s"}

	// The host (this machine, through libvirtd) has fewer than 9 CPUs.
	out, err := e.cmd(dir, append([]string{"plan"}, e.vars("server_cpus=8")...)...).CombinedOutput()
	line := 1 + strings.Count(body[:strings.Index(body, "server   = var.server_cpus")], "\n")
	want := fmt.Sprintf(`lab.hcl:%d,16-31: cpu_pin server = "8" asks for CPU 8, but the libvirt host at qemu:///system has`, line)
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("plan pinning CPU 8 should fail with %q: %v\n%s", want, err, out)
	}

	names := kvmPlan(t, e, dir, pin...)
	defer func() {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
	}()
	start := time.Now()
	if out, err := e.cmd(dir, "apply", "-auto-approve", "-keep", names.File).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	t.Logf("figures: two-NIC q35 pair applied (boot, one 3 s run) in %v", time.Since(start).Round(time.Second))

	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	eps := map[string]machine.Instance{}
	for _, r := range st.Resources {
		if r.Instance.Kind == "machine" {
			eps[r.Instance.Name] = r.Instance
		}
	}
	linkAddr := map[string]string{}
	for _, name := range []string{names.Server, names.Client} {
		in, ok := eps[name]
		if !ok || in.Endpoint == nil {
			t.Fatalf("state has no machine %s", name)
		}
		ep := in.Endpoint
		mgmt, linkMAC, mgmtMAC := in.Attrs["mgmt_addr"], in.Attrs["mac"], in.Attrs["mgmt_mac"]
		if ep.SSHHost == "" || ep.SSHHost != mgmt || ep.Addr == ep.SSHHost {
			t.Fatalf("%s: ssh %q, benchmark address %q, management address %q: SSH must use the management NIC", name, ep.SSHHost, ep.Addr, mgmt)
		}
		linkAddr[name] = ep.Addr
		// Inside the guest: which address the SSH session came in on, and
		// each NIC's addresses and MTU, found by MAC.
		o, err := exec.Command("ip", "netns", "exec", e.ns, "ssh", "-i", e.key, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "LogLevel=ERROR", "root@"+ep.SSHHost, `hostname; echo "$SSH_CONNECTION"; ip -j addr`).Output()
		if err != nil {
			t.Fatalf("ssh %s: %v", ep.SSHHost, err)
		}
		// lab named the guest after its domain at the first login.
		host, rest, _ := strings.Cut(string(o), "\n")
		if host != name {
			t.Errorf("%s: the guest's hostname is %q, want its domain's name", name, host)
		}
		conn, addrJSON, _ := strings.Cut(rest, "\n")
		if f := strings.Fields(conn); len(f) != 4 || f[2] != ep.SSHHost {
			t.Errorf("%s: SSH_CONNECTION %q: the session did not come in on the management address %s", name, conn, ep.SSHHost)
		}
		var ifs []struct {
			Name     string `json:"ifname"`
			MTU      int    `json:"mtu"`
			Address  string `json:"address"`
			AddrInfo []struct {
				Family string `json:"family"`
				Local  string `json:"local"`
			} `json:"addr_info"`
		}
		if err := json.Unmarshal([]byte(addrJSON), &ifs); err != nil {
			t.Fatalf("%s: ip -j addr: %v\n%s", name, err, addrJSON)
		}
		seen := 0
		for _, i := range ifs {
			var v4 []string
			for _, a := range i.AddrInfo {
				if a.Family == "inet" {
					v4 = append(v4, a.Local)
				}
			}
			switch {
			case strings.EqualFold(i.Address, linkMAC):
				seen++
				if len(v4) != 1 || v4[0] != ep.Addr || i.MTU != 9000 || i.Name != ep.Iface {
					t.Errorf("%s: benchmark NIC %s: %v MTU %d, want %s (%s) at the link's MTU 9000", name, i.Name, v4, i.MTU, ep.Addr, ep.Iface)
				}
			case strings.EqualFold(i.Address, mgmtMAC):
				seen++
				if len(v4) != 1 || v4[0] != mgmt || i.Name == ep.Iface {
					t.Errorf("%s: management NIC %s: %v, want %s", name, i.Name, v4, mgmt)
				}
			}
		}
		if seen != 2 {
			t.Errorf("%s: found %d of the two NICs by MAC in\n%s", name, seen, addrJSON)
		}
		// The domain is what the spec asked: q35, vCPU and emulator pinned.
		x, ok := virshDo("dumpxml", name)
		cpu := "0"
		if name == names.Client {
			cpu = "1"
		}
		for _, w := range []string{"machine='pc-q35", "rx_queue_size='1024'", "<vcpupin vcpu='0' cpuset='" + cpu + "'/>", "<emulatorpin cpuset='0-1'/>"} {
			if !ok || !strings.Contains(x, w) {
				t.Errorf("%s: domain XML lacks %s", name, w)
			}
		}
	}
	// The run went over the link: iperf3's own record of its connection,
	// and the results' record of the placement.
	r := oneRun(t, dir)
	for _, c := range iperf3Connections(t, r) {
		if c.Local != linkAddr[names.Client] || c.Remote != linkAddr[names.Server] {
			t.Errorf("iperf3 ran %s → %s, want the link addresses %s → %s", c.Local, c.Remote, linkAddr[names.Client], linkAddr[names.Server])
		}
	}
	if r.Observed.Server.MTU != 9000 || r.Observed.Client.MTU != 9000 {
		t.Errorf("observed MTU %d/%d, want the link's 9000", r.Observed.Server.MTU, r.Observed.Client.MTU)
	}
	for end, rg := range map[string]*guest.Rings{"server": r.Observed.Server.Rings, "client": r.Observed.Client.Rings} {
		if rg == nil || rg.RX != 128 || rg.TX != 128 {
			t.Errorf("%s: observed rings %+v, want rx 128 tx 128 (ethtool -G in the guest)", end, rg)
		}
		// nic { rx_queue_size = 1024 }: QEMU's RX ring is what the guest
		// driver reports as its maximum; TX stays at QEMU's 256 for tap.
		if rg != nil && (rg.RXMax != 1024 || rg.TXMax != 256) {
			t.Errorf("%s: observed ring maximums rx %d tx %d, want 1024 (rx_queue_size) and QEMU's 256", end, rg.RXMax, rg.TXMax)
		}
	}
	hs := r.Provenance.HostSettings
	if !strings.Contains(hs["server"], "machine=q35") || !strings.Contains(hs["server"], "vcpupin=0") || !strings.Contains(hs["client"], "vcpupin=1") ||
		!strings.Contains(hs["client"], "emulatorpin=0-1") || !strings.Contains(hs["client"], "mgmt_network=lab-") ||
		!strings.Contains(hs["server"], "rx_queue_size=1024") {
		t.Errorf("host settings not recorded: %v", hs)
	}
	t.Logf("figures: %.2f Gb/s over the link (%s → %s) at MTU 9000, SSH over the management NIC", r.Metrics.ThroughputBps/1e9, linkAddr[names.Client], linkAddr[names.Server])
}

// kvmHostDevice applies examples/kvm-host-bridge on a device the test
// makes in the harness's namespace (MTU 9000, as a user's would be): a
// bridge (link_bridge), or one end of a veth pair under macvtap in bridge
// mode (link_macvtap), which switches between the guests' macvtaps. A link MTU
// other than the device's fails apply naming the device and leaves it as
// it was; the matching one boots the pair with its benchmark NICs on the
// device, addressed by lab over the management NIC, and iperf3 runs
// between those addresses. The device is the test's, deleted after; lab
// must leave it with its MTU.
func kvmHostDevice(t *testing.T, e kvmEnv, kind string) {
	dev, devType, attr, xmlWant := "labtbr0", "bridge", "link_bridge", []string{"<interface type='bridge'>", "<source bridge='labtbr0'/>"}
	if kind == "macvtap" {
		dev, devType, attr, xmlWant = "labtdum0", "veth", "link_macvtap", []string{"<interface type='direct'>", "<source dev='labtdum0' mode='bridge'/>"}
	}
	ipns := func(args ...string) (string, error) {
		out, err := exec.Command("ip", append([]string{"netns", "exec", e.ns, "ip"}, args...)...).CombinedOutput()
		return string(out), err
	}
	add := []string{"link", "add", dev, "type", devType}
	setup := [][]string{{"link", "set", dev, "mtu", "9000"}, {"link", "set", dev, "up"}}
	if devType == "veth" { // no dummy driver in this kernel: a veth whose peer is up too
		add = append(add, "peer", "name", dev+"p")
		setup = append(setup, []string{"link", "set", dev + "p", "mtu", "9000"}, []string{"link", "set", dev + "p", "up"})
	}
	if out, err := ipns(add...); err != nil {
		t.Fatalf("make the %s: %v\n%s", devType, err, out)
	}
	t.Cleanup(func() {
		if out, err := ipns("link", "del", dev); err != nil {
			t.Errorf("delete %s: %v\n%s", dev, err, out)
		}
	})
	for _, args := range setup {
		if out, err := ipns(args...); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	bridgeMTU := func() string {
		out, err := ipns("-o", "link", "show", dev)
		if err != nil {
			t.Fatalf("%s is gone: %v\n%s", dev, err, out)
		}
		f := strings.Fields(out)
		for i := range f[:len(f)-1] {
			if f[i] == "mtu" {
				return f[i+1]
			}
		}
		return ""
	}
	src, err := os.ReadFile("../../examples/kvm-host-bridge/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	vars := []string{"bridge=" + dev, "duration=3s"}
	if kind == "macvtap" {
		src = []byte(strings.Replace(string(src), "link_bridge = var.bridge", "link_macvtap = var.bridge", 1))
	}

	// The spec asks MTU 1500 of a 9000 bridge: refused, bridge untouched.
	dir := t.TempDir()
	body := strings.NewReplacer("repeat = 3", "repeat = 1", "mtu = 9000 # must", "mtu = 1500 # must", "    mtu = 9000\n", "    mtu = 1500\n").Replace(string(src))
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := e.cmd(dir, append([]string{"apply", "-auto-approve"}, e.vars(vars...)...)...).CombinedOutput()
	if want := "the link asks MTU 1500 but " + attr + " " + dev + " has MTU 9000"; err == nil || !strings.Contains(string(out), want) {
		t.Errorf("apply with link MTU 1500 on a 9000 bridge: %v, want %q\n%s", err, want, out)
	}
	if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
		t.Errorf("destroy after the refused apply: %v\n%s", err, out)
	}
	if m := bridgeMTU(); m != "9000" {
		t.Errorf("%s's MTU is %s after the refused apply, want its own 9000", dev, m)
	}

	dir = t.TempDir()
	body = strings.Replace(string(src), "repeat = 3", "repeat = 1", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	names := kvmPlan(t, e, dir, vars...)
	defer func() {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
		if m := bridgeMTU(); m != "9000" {
			t.Errorf("%s's MTU is %s after destroy, want its own 9000", dev, m)
		}
	}()
	start := time.Now()
	if out, err := e.cmd(dir, "apply", "-auto-approve", "-keep", names.File).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	t.Logf("figures: pair on %s %s applied (boot, static link addresses, one 3 s run) in %v", attr, dev, time.Since(start).Round(time.Second))
	for _, name := range []string{names.Server, names.Client} {
		x, ok := virshDo("dumpxml", name)
		if !ok || !strings.Contains(x, xmlWant[0]) || !strings.Contains(x, xmlWant[1]) {
			t.Errorf("%s: the benchmark NIC is not on %s:\n%s", name, dev, x)
		}
	}
	// Both taps are ports of the bridge, or both macvtaps sit on the
	// dummy NIC (in the daemon's namespace).
	if kind == "macvtap" {
		if out, err := ipns("-o", "link", "show", "type", "macvtap"); err != nil || strings.Count(out, "@"+dev+":") != 2 {
			t.Errorf("macvtaps on %s: %v\n%s", dev, err, out)
		}
	} else if out, err := ipns("-o", "link", "show", "master", dev); err != nil || strings.Count(out, "\n") != 2 {
		t.Errorf("ports of %s: %v\n%s", dev, err, out)
	}
	r := oneRun(t, dir)
	for _, c := range iperf3Connections(t, r) {
		if !strings.HasPrefix(c.Local, "198.1") || !strings.HasSuffix(c.Local, ".3") || !strings.HasSuffix(c.Remote, ".2") {
			t.Errorf("iperf3 ran %s → %s, want lab's static link addresses (.3 → .2 in 198.18.0.0/15)", c.Local, c.Remote)
		}
	}
	if r.Observed.Server.MTU != 9000 || r.Observed.Client.MTU != 9000 {
		t.Errorf("observed MTU %d/%d, want the device's 9000", r.Observed.Server.MTU, r.Observed.Client.MTU)
	}
	lt := map[string]string{"bridge": "bridge", "macvtap": "direct"}[kind]
	if hs := r.Provenance.HostSettings; !strings.Contains(hs["server"], "link_type="+lt) || !strings.Contains(hs["client"], "link_dev="+dev) {
		t.Errorf("host settings: %v", hs)
	}
	t.Logf("figures: %.2f Gb/s over %s %s at MTU 9000", r.Metrics.ThroughputBps/1e9, attr, dev)
}

// kvmCloudLab is a one-run lab on a cloud image: a template with
// cloud_init {} (lab's key, a user-data part of the user's own), the
// harness's kernel, one 3 s iperf3 run.
const kvmCloudLab = `lab "kvm-cloud" {}

variable "pool" { type = string }
variable "accel" { type = string }
variable "ssh_key" { type = string }
variable "image" { type = string }

provider "libvirt" "host" {
  pool   = var.pool
  accel  = var.accel
  kernel = "vmlinux"
  initrd = "initrd.img"
}

template "cloud" {
  source = var.image
  os     = "linux"
  cloud_init {
    user_data = "#cloud-config\nwrite_files:\n  - path: /run/lab-user-part\n    content: from the user's part\n"
  }
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}

pair "seeded" {
  template = template.cloud
  vcpu     = 1
  memory   = "768MiB"
}

experiment "once" {
  pairs = [pair.seeded]
  iperf3 {
    duration = "3s"
  }
}
`

// kvmCloudInit: guests of a cloud image that holds no login key (the
// build script's -c variant) are seeded by lab through a NoCloud seed disk:
// lab logs in with its own key, each guest has its own hostname, the
// user's user-data part ran, and teardown removes the seed volumes with
// the domains.
func kvmCloudInit(t *testing.T, e kvmEnv) {
	start := time.Now()
	b, err := exec.Command("../../scripts/build-kvm-image.sh", "-c", "-k", e.key+".pub", "-o", filepath.Dir(e.image)).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("build the cloud variant: %v\n%s", err, stderr)
	}
	img := strings.TrimSpace(string(b))
	t.Logf("figures: cloud variant ready in %v (cached after the first build)", time.Since(start).Round(time.Second))
	if _, err := os.Stat(filepath.Join(img, "base.qcow2")); err != nil {
		t.Fatalf("the cloud variant %q has no base.qcow2: %v", img, err)
	}
	// Into the harness's pool under a name of its own.
	var pool struct {
		Target struct {
			Path string `xml:"path"`
		} `xml:"target"`
	}
	x, ok := virshDo("pool-dumpxml", e.pool)
	if !ok || xml.Unmarshal([]byte(x), &pool) != nil || pool.Target.Path == "" {
		t.Fatalf("pool %s: %s", e.pool, x)
	}
	const vol = "cloud-variant.qcow2"
	if out, err := exec.Command("cp", "--reflink=auto", filepath.Join(img, "base.qcow2"), filepath.Join(pool.Target.Path, vol)).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	defer virshDo("vol-delete", vol, "--pool", e.pool)
	if out, ok := virshDo("pool-refresh", e.pool); !ok {
		t.Fatalf("pool-refresh: %s", out)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(kvmCloudLab), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "lab.plan")
	out, err := e.cmd(dir, append([]string{"plan", "-out", file}, e.vars("image="+vol)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	var group string
	defer func() {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if group == "" {
			return
		}
		if left := leftovers(t, e, group); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
	}()
	start = time.Now()
	if out, err := e.cmd(dir, "apply", "-auto-approve", "-keep", file).CombinedOutput(); err != nil {
		t.Fatalf("apply on the seeded cloud image: %v\n%s", err, out)
	}
	applied := time.Since(start)
	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	hostnames := map[string]bool{}
	var ready []string
	for _, r := range st.Resources {
		in := r.Instance
		if in.Kind != "machine" {
			if in.Kind == "link" {
				group = in.Name
			}
			continue
		}
		ready = append(ready, in.Attrs["ready_s"]+" s")
		seed := in.Attrs["seed"]
		if vols := virsh(t, "vol-list", e.pool); seed == "" || !slices.Contains(vols, seed) {
			t.Errorf("%s: seed volume %q not in pool %s (%v)", in.Name, seed, e.pool, vols)
		}
		o, err := exec.Command("ip", "netns", "exec", e.ns, "ssh", "-i", e.key, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "LogLevel=ERROR", "root@"+in.Endpoint.SSHHost, "hostname; cat /run/lab-user-part; echo; cloud-init query v1.instance_id").CombinedOutput()
		if err != nil {
			t.Errorf("%s: ssh: %v\n%s", in.Name, err, o)
			continue
		}
		lines := strings.Split(strings.TrimSpace(string(o)), "\n")
		if len(lines) < 3 || lines[0] != in.Name || lines[1] != "from the user's part" || !strings.HasPrefix(lines[2], in.Name+"-") {
			t.Errorf("%s: hostname, user part and instance id: %q", in.Name, lines)
		}
		hostnames[lines[0]] = true
	}
	if len(hostnames) != 2 {
		t.Errorf("want two distinct hostnames, got %v", hostnames)
	}
	t.Logf("figures: cloud-init seeded pair applied in %v; create → SSH-ready %v", applied.Round(time.Second), ready)
}

// kvmDaemonStopsAnswering: the harness's real libvirtd behind a UNIX
// socket proxy that, on command, stops passing the daemon's answers on —
// what a client sees of a daemon that is stopped (SIGSTOP) or wedged
// mid-session, without stopping the shared daemon. A call that worked a
// moment before fails within call_timeout, naming the URI and the call,
// and the session's next call fails at once. Nothing boots.
func kvmDaemonStopsAnswering(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "proxy-sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var frozen atomic.Bool
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			d, err := net.Dial("unix", "/run/libvirt/libvirt-sock")
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(d, c); d.Close() }()
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := d.Read(buf)
					if n > 0 && !frozen.Load() {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	uri := "qemu+unix:///system?socket=" + sock
	f, diags := hclsyntax.ParseConfig([]byte(`uri = "`+uri+`"
call_timeout = "2s"
`), "lab.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := libvirt.New()
	if d := p.Configure(context.Background(), f.Body); d.HasErrors() {
		t.Fatal(d)
	}
	defer p.Close(context.Background())
	ctx := context.Background()
	owner := machine.Owner{Lab: "kvm-silent", Workspace: "0a1b2c3d"}
	if _, err := p.List(ctx, owner); err != nil {
		t.Fatalf("List through the proxy: %v", err)
	}
	frozen.Store(true)
	start := time.Now()
	_, err = p.List(ctx, owner)
	took := time.Since(start)
	var st *libvirt.StalledError
	if !errors.As(err, &st) || !strings.Contains(err.Error(), "libvirtd at "+uri+" did not answer") {
		t.Fatalf("List after the daemon went quiet: %v (after %v)", err, took)
	}
	t.Logf("figures: a daemon gone quiet mid-session: the call failed after %v (call_timeout 2s): %v", took.Round(100*time.Millisecond), err)
	if took > 10*time.Second {
		t.Errorf("the call took %v with call_timeout 2s", took)
	}
	again := time.Now()
	if _, err := p.List(ctx, owner); !errors.As(err, &st) || time.Since(again) > time.Second {
		t.Errorf("the next call: %v after %v, want the stall at once", err, time.Since(again))
	}
}
