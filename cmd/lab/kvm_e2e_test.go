package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/libvirt"
	"github.com/lab-bench/lab/results"
	"github.com/lab-bench/lab/state"
)

// The KVM suite: a private libvirtd in a network namespace (test/kvm/
// harness.sh), two real Debian guests under QEMU/TCG from the image that
// scripts/build-kvm-image.sh makes, configured over SSH, iperf3 between
// them. It needs root and the packages .ci/run installs; it skips without
// them, except under CI=true, where a skip would hide a broken harness.

type kvmEnv struct{ ns, pool, key, image string }

func kvmHarness(t *testing.T) kvmEnv {
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
	harness, _ := filepath.Abs("../../test/kvm/harness.sh")
	out, err := exec.Command(harness, "start").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		fail("KVM harness did not start: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(harness, "stop").CombinedOutput(); err != nil {
			t.Errorf("harness stop: %v\n%s", err, out)
		}
	})
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
func kvmLab(t *testing.T, name, pair string) string {
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
func kvmPlan(t *testing.T, e kvmEnv, dir string, vars ...string) kvmNames {
	t.Helper()
	file := filepath.Join(dir, "lab.plan")
	out, err := e.cmd(dir, append([]string{"plan", "-json", "-out", file}, e.vars(vars...)...)...).Output()
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

func virsh(t *testing.T, args ...string) []string {
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
func leftovers(t *testing.T, e kvmEnv, group string, keep ...string) []string {
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

func TestKVM(t *testing.T) {
	e := kvmHarness(t)

	t.Run("ownership: objects with lab's names that are not lab's are refused, never recorded, and survive", func(t *testing.T) {
		kvmOwnership(t, e)
	})

	t.Run("jumbo frames end to end, beside a killed lab whose old names collide", func(t *testing.T) {
		// Lab "kvm" with pair "e2e-jumbo" and lab "kvm-e2e" with pair
		// "jumbo" were both "kvm-e2e-jumbo" once. The first is killed (-9)
		// while booting and its guests paused; the second runs beside them.
		killedDir := kvmLab(t, "kvm", "e2e-jumbo")
		killed := kvmPlan(t, e, killedDir)
		defer func() {
			if out, err := e.cmd(killedDir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
				t.Errorf("destroy the killed lab: %v\n%s", err, out)
			}
			if left := leftovers(t, e, killed.Group); len(left) > 0 {
				t.Errorf("killed lab: left after destroy: %v", left)
			}
		}()
		kill := e.cmd(killedDir, "apply", "-auto-approve", killed.File)
		if err := kill.Start(); err != nil {
			t.Fatal(err)
		}
		// Both domains are defined and booting well before 8 s.
		time.Sleep(8 * time.Second)
		_ = kill.Process.Signal(syscall.SIGKILL) // ip netns exec execs lab: the process is lab itself
		_ = kill.Wait()
		for _, d := range []string{killed.Server, killed.Client} {
			if out, ok := virshDo("suspend", d); !ok {
				t.Fatalf("the killed lab's domain %s: %s", d, out)
			}
		}

		const id = "kvm-e2e"
		dir := kvmLab(t, id, "jumbo")
		names := kvmPlan(t, e, dir, "duration=5s")
		defer func() {
			if left := leftovers(t, e, names.Group); len(left) > 0 {
				t.Errorf("left in libvirt after apply: %v", left)
			}
		}()
		start := time.Now()
		cmd := e.cmd(dir, "apply", "-auto-approve", "-json", names.File)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			t.Fatalf("apply: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		for _, d := range []string{killed.Server, killed.Client} {
			if _, ok := virshDo("dominfo", d); !ok {
				t.Errorf("the killed lab's domain %s is gone after another lab's apply", d)
			}
		}
		var ready, teardown time.Duration
		var first, last time.Time
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var ev struct {
				Time    time.Time     `json:"time"`
				Type    string        `json:"type"`
				Address string        `json:"address"`
				Elapsed time.Duration `json:"elapsed_ns"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch {
			case ev.Type == "created" && (strings.HasSuffix(ev.Address, ".server") || strings.HasSuffix(ev.Address, ".client")):
				ready = max(ready, ev.Elapsed)
			case ev.Type == "teardown":
				first = ev.Time
			case ev.Type == "deleted":
				last = ev.Time
			}
		}
		if !first.IsZero() && !last.IsZero() {
			teardown = last.Sub(first)
		}
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		rid, err := rs.Latest()
		if err != nil {
			t.Fatal(err)
		}
		_, recs, err := rs.Load(rid)
		if err != nil {
			t.Fatal(err)
		}
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
			by[r.Intent.Server.MTU] = append(by[r.Intent.Server.MTU], r.Metrics.ThroughputBps/1e9)
		}
		m1500, m9000 := kvmMedian(by[1500]), kvmMedian(by[9000])
		t.Logf("figures: both guests SSH-ready %v after create; teardown %v; whole apply %v", ready.Round(100*time.Millisecond),
			teardown.Round(10*time.Millisecond), time.Since(start).Round(time.Second))
		t.Logf("figures: MTU 1500 %v Gb/s (median %.2f), MTU 9000 %v Gb/s (median %.2f)", by[1500], m1500, by[9000], m9000)
		if len(by[1500]) != 3 || len(by[9000]) != 3 {
			t.Fatalf("want 3 results per MTU, got %v", by)
		}
		if !(m9000 > m1500) {
			t.Errorf("MTU 9000 median %.2f Gb/s is not above MTU 1500 median %.2f Gb/s", m9000, m1500)
		}
		kvmLockPinsImage(t, e, dir)
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

	t.Run("SIGINT while booting, then destroy", func(t *testing.T) {
		dir := kvmLab(t, "kvm-sigint", "jumbo")
		names := kvmPlan(t, e, dir)
		cmd := e.cmd(dir, "apply", "-auto-approve", names.File)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(8 * time.Second)
		_ = cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); err == nil {
			t.Errorf("SIGINT: apply exited 0")
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("SIGINT: apply left %v\n%s", left, out.String())
		}
		if dout, derr := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); derr != nil {
			t.Fatalf("destroy: %v\n%s", derr, dout)
		}
	})
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
	tagged := func(name, bridge string, o providers.Owner) string {
		return xmlFile(name, "<network><name>"+name+"</name><metadata><lab xmlns='"+libvirt.MetadataNS+"'><tag>"+o.Tag("pair.jumbo.link")+
			"</tag></lab></metadata><bridge name='"+bridge+"' stp='off' delay='0'/></network>")
	}
	other, orphan := "lab-"+id+"-g-jumbo-000000", "lab-"+names.Group+"-orphan"
	for _, n := range []struct{ name, bridge, lab string }{{other, "labhand1", id + "-g"}, {orphan, "labhand2", id}} {
		if out, ok := virshDo("net-create", tagged(n.name, n.bridge, providers.Owner{Lab: n.lab, Workspace: ws})); !ok {
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
