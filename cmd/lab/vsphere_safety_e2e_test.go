package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestVSphereOrphansHintIsSafe: from a directory that is not theirs,
// `destroy -orphans` leaves another workspace's VM and a hand-made VM
// tagged "ws=*" alone, names the real workspace id in a command that
// removes exactly that workspace's VM, suggests no command for "*", and
// refuses `-workspace '*'` (and other patterns) before touching anything.
func TestVSphereOrphansHintIsSafe(t *testing.T) {
	sim := vspheretest.Start(t)
	other := machine.Owner{Lab: "vws", Workspace: "ab12cd34"}
	star := machine.Owner{Lab: "vws", Workspace: "*"}
	live := sim.PlantVM(t, vsphere.FolderName(other), "vws-fbsd-s", other.Tag("pair.fbsd.server"))
	forged := sim.PlantVM(t, "by-hand", "vws-by-hand", star.Tag("pair.fbsd.server"))
	dir := t.TempDir()
	src := strings.Replace(vsphereLab, "%q", `"vws"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := labEnv(t, sim, dir, "destroy", "-auto-approve", "-orphans")
	if err != nil {
		t.Fatalf("destroy -orphans: %v\n%s", err, stderr)
	}
	want := "Left alone: 1 object(s) of lab \"vws\" in workspace ab12cd34, another lab directory's. " +
		"If that directory or its state is gone, `lab destroy -orphans -workspace ab12cd34` removes them."
	if !strings.Contains(stderr, want) {
		t.Errorf("no hint naming the real workspace:\n%s", stderr)
	}
	if strings.Contains(stderr, "-workspace *") || strings.Contains(stderr, "workspace *,") ||
		!strings.Contains(stderr, `tagged with workspace "*", which is not a workspace id lab makes: lab suggests no command`) {
		t.Errorf("the hint for the ws=* VM is not safe as printed:\n%s", stderr)
	}
	if !sim.Exists(live) || !sim.Exists(forged) {
		t.Fatalf("destroy -orphans touched another workspace's VM (%v) or the hand-made one (%v)", sim.Exists(live), sim.Exists(forged))
	}
	for _, ws := range []string{"*", "ab12*", "ab1?cd34", "[a]b12cd34", "ab12cd34 x", "../ab12cd34"} {
		_, stderr, err := labEnv(t, sim, dir, "destroy", "-auto-approve", "-orphans", "-workspace", ws)
		if err == nil || !strings.Contains(stderr, "is not a workspace id") {
			t.Errorf("-workspace %q: %v\n%s", ws, err, stderr)
		}
	}
	if !sim.Exists(live) || !sim.Exists(forged) {
		t.Fatal("a refused -workspace pattern touched a VM")
	}
	if out, stderr, err := labEnv(t, sim, dir, "destroy", "-auto-approve", "-orphans", "-workspace", "ab12cd34"); err != nil {
		t.Fatalf("the suggested command: %v\n%s%s", err, out, stderr)
	}
	if sim.Exists(live) || !sim.Exists(forged) {
		t.Errorf("the suggested command: workspace's VM left %v, hand-made VM kept %v", sim.Exists(live), sim.Exists(forged))
	}
	sim.Remove(t, forged)
}

// TestVSphereTemplateCheckedBeforeCreate: a saved plan records each
// machine's template identity, and `apply PLAN` refuses a template edited
// since the plan — with no lock file — before it clones anything; with a
// lock file pinning another identity, `apply -locked` refuses before the
// first create too (it used to run the benchmarks first).
func TestVSphereTemplateCheckedBeforeCreate(t *testing.T) {
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	src := strings.Replace(vsphereLab, "%q", `"vtpl"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	planFile := filepath.Join(dir, "saved.plan")
	if out, stderr, err := labEnv(t, sim, dir, "plan", "-out", planFile); err != nil {
		t.Fatalf("plan -out: %v\n%s%s", err, out, stderr)
	}
	saved, err := plan.Load(planFile)
	if err != nil || len(saved.Templates) != 2 {
		t.Fatalf("saved plan templates %v, %v", saved.Templates, err)
	}
	vms := len(sim.VMs())
	sim.EditTemplate(t, vspheretest.FreeBSD)
	out, stderr, err := labEnv(t, sim, dir, "apply", "-auto-approve", planFile)
	if err == nil || !strings.Contains(stderr, `template "freebsd" of pair.fbsd`) || !strings.Contains(stderr, "changed since the plan was made") ||
		!strings.Contains(stderr, "nothing was created") {
		t.Errorf("apply of a plan whose template changed: %v\n%s%s", err, out, stderr)
	}
	if strings.Contains(out, ": creating ") || len(sim.VMs()) != vms {
		t.Errorf("apply created something before refusing: VMs %v\n%s", sim.VMs(), out)
	}

	lock := "# test\n"
	for addr := range saved.Templates {
		lock += "machine \"" + addr + "\" {\n  template = \"instance-uuid 0 change-version 0\"\n}\n"
	}
	if err := os.WriteFile(filepath.Join(dir, ".lab.lock.hcl"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err = labEnv(t, sim, dir, "apply", "-auto-approve", "-locked")
	if err == nil || !strings.Contains(stderr, "drift from .lab.lock.hcl (-locked): template \"freebsd\"") || !strings.Contains(stderr, "nothing was created") {
		t.Errorf("apply -locked on a drifted template: %v\n%s%s", err, out, stderr)
	}
	if strings.Contains(out, ": creating ") || len(sim.VMs()) != vms {
		t.Errorf("apply -locked created VMs before refusing: %v", sim.VMs())
	}
}

// TestVSpherePlanShowsHostNetworkChanges: plan lists, in its text and its
// JSON, the MTU change apply would make on each cluster host's vSwitch,
// and changes nothing; with DRS off and no host, plan and apply fail
// before any switch changes.
func TestVSpherePlanShowsHostNetworkChanges(t *testing.T) {
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	src := strings.Replace(vsphereLab, "%q", `"vnet"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sim.HostMTUs()
	out, stderr, err := labEnv(t, sim, dir, "plan")
	if err != nil || !strings.Contains(out, "Host network changes (3; destroy undoes each, restoring the MTU found):") ||
		!strings.Contains(out, "  ~ pair.fbsd.link: vSwitch0 on host DC0_C0_H1: MTU unset (1500 by default) -> 9000\n") {
		t.Errorf("plan does not list the host network changes: %v\n%s%s", err, out, stderr)
	}
	out, stderr, err = labEnv(t, sim, dir, "plan", "-json")
	var shown struct {
		NetworkChanges []providers.NetworkChange `json:"network_changes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &shown) != nil || len(shown.NetworkChanges) != 3 ||
		shown.NetworkChanges[0] != (providers.NetworkChange{Link: "pair.fbsd.link", Host: "DC0_C0_H0", Switch: "vSwitch0", Change: "mtu", From: 1500, FromUnset: true, To: 9000}) {
		t.Errorf("plan -json network_changes %+v: %v\n%s", shown.NetworkChanges, err, stderr)
	}
	sim.DisableDRS(t)
	for _, args := range [][]string{{"plan"}, {"apply", "-auto-approve"}} {
		_, stderr, err := labEnv(t, sim, dir, args...)
		if err == nil || !strings.Contains(stderr, "has DRS off") {
			t.Errorf("%v with DRS off: %v\n%s", args, err, stderr)
		}
	}
	for h, mtu := range sim.HostMTUs() {
		if mtu != before[h] {
			t.Errorf("%s MTU %d, was %d: plan or a refused apply changed it", h, mtu, before[h])
		}
	}
}
