package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The identity tests: every object carries its lab and workspace, so labs
// on one host never touch each other's machines (issue 9, section 2).

const twinLab = `
template "host" { os = "linux" }
pair "%s" {
  template = template.host
  vcpu     = 1
}
experiment "mtu" {
  pairs  = [pair.%s]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

func twin(pair string) string { return strings.ReplaceAll(twinLab, "%s", pair) }

// TestTwoCheckoutsConcurrentlyForReal applies one lab from two directories
// (two checkouts) at the same time: both complete with every run, their
// benchmarks take turns on the host lock, and nothing is left.
func TestTwoCheckoutsConcurrentlyForReal(t *testing.T) {
	needNamespaces(t)
	a, b := labDir(t, "e2e-twin", twin("veth")), labDir(t, "e2e-twin", twin("veth"))
	lockDir := t.TempDir()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i, dir := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := labCmd(dir, "apply", "-auto-approve")
			cmd.Env = append(os.Environ(), "LAB_HOST_LOCK_DIR="+lockDir)
			out, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(out), err
		}()
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil || !strings.Contains(outs[i], "Apply complete") || !strings.Contains(outs[i], "2 runs (0 failed)") {
			t.Errorf("checkout %d: %v\n%s", i+1, errs[i], outs[i])
		}
	}
	if left := namespaces(t, "e2e-twin"); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// TestNameCollisionAndOrphansForReal: lab "e2e-rel-a" with pair "b-c" and
// lab "e2e-rel-a-b" with pair "c" used to make the same namespace; now both
// run side by side, and `destroy -orphans` of one leaves the other's
// machines alone.
func TestNameCollisionAndOrphansForReal(t *testing.T) {
	needNamespaces(t)
	first, second := labDir(t, "e2e-rel-a", twin("b-c")), labDir(t, "e2e-rel-a-b", twin("c"))
	for _, dir := range []string{first, second} {
		if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep"); err != nil {
			t.Fatalf("apply -keep in %s: %v\n%s%s", dir, err, out, stderr)
		}
	}
	// Both labs' names start "lab-e2e-rel-a-b-c-": only the tag on each
	// namespace's loopback says whose it is.
	owners := map[string][]string{}
	for ns := range nsSet(t) {
		if strings.HasPrefix(ns, "lab-e2e-rel-a-") {
			out, _ := exec.Command("ip", "-n", ns, "-o", "link", "show", "dev", "lo").Output()
			lab := "untagged"
			if _, rest, ok := strings.Cut(string(out), "alias lab/1 lab="); ok {
				lab, _, _ = strings.Cut(rest, " ")
			}
			owners[lab] = append(owners[lab], ns)
		}
	}
	if len(owners["e2e-rel-a"]) != 2 || len(owners["e2e-rel-a-b"]) != 2 || len(owners) != 2 {
		t.Fatalf("namespaces by owner: %v, want two of each lab", owners)
	}
	if out, stderr, err := lab(t, first, "destroy", "-auto-approve", "-orphans"); err != nil {
		t.Fatalf("destroy -orphans: %v\n%s%s", err, out, stderr)
	}
	after := nsSet(t)
	for _, ns := range owners["e2e-rel-a-b"] {
		if !after[ns] {
			t.Errorf("destroy -orphans of lab e2e-rel-a removed %s, lab e2e-rel-a-b's", ns)
		}
	}
	for _, ns := range owners["e2e-rel-a"] {
		if after[ns] {
			t.Errorf("%s of lab e2e-rel-a survived its destroy", ns)
		}
	}
	if out, stderr, err := lab(t, second, "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy: %v\n%s%s", err, out, stderr)
	}
}

// TestCopiedLabDirectoryForReal: a lab directory copied with its .lab/
// while machines exist is refused — the machines are the original's — and
// the original can still destroy them.
func TestCopiedLabDirectoryForReal(t *testing.T) {
	needNamespaces(t)
	orig := labDir(t, "e2e-copy", twin("veth"))
	if out, stderr, err := lab(t, orig, "apply", "-auto-approve", "-keep"); err != nil {
		t.Fatalf("apply -keep: %v\n%s%s", err, out, stderr)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", orig, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	before := namespaces(t, "e2e-copy")
	for _, verb := range [][]string{{"apply", "-auto-approve"}, {"destroy", "-auto-approve"}, {"plan"}} {
		_, stderr, err := lab(t, copyDir, verb...)
		if err == nil || !strings.Contains(stderr, "looks like a copy") || !strings.Contains(stderr, "remove .lab/ here") {
			t.Errorf("%s in a copied directory: %v\n%s", verb[0], err, stderr)
		}
	}
	if now := namespaces(t, "e2e-copy"); len(now) != len(before) || len(now) != 2 {
		t.Errorf("the copy touched the original's machines: before %v, after %v", before, now)
	}
	// With .lab/ removed the copy is a workspace of its own.
	os.RemoveAll(filepath.Join(copyDir, ".lab"))
	if out, stderr, err := lab(t, copyDir, "apply", "-auto-approve"); err != nil {
		t.Errorf("apply in the copy after removing .lab/: %v\n%s%s", err, out, stderr)
	}
	if now := namespaces(t, "e2e-copy"); len(now) != 2 {
		t.Errorf("the copy's apply touched the original's machines: %v", now)
	}
	if out, stderr, err := lab(t, orig, "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy the original: %v\n%s%s", err, out, stderr)
	}
}

// TestMovedLabDirectoryForReal: a lab directory moved (renamed) while its
// machines are kept is still theirs — plan reuses them and destroy removes
// them from the new place (issue 20, section 6) — while a copy of it is
// still refused.
func TestMovedLabDirectoryForReal(t *testing.T) {
	needNamespaces(t)
	orig := labDir(t, "e2e-moved", twin("veth"))
	if out, stderr, err := lab(t, orig, "apply", "-auto-approve", "-keep"); err != nil {
		t.Fatalf("apply -keep: %v\n%s%s", err, out, stderr)
	}
	kept := namespaces(t, "e2e-moved")
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(orig, moved); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", moved, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if _, stderr, err := lab(t, copyDir, "destroy", "-auto-approve"); err == nil || !strings.Contains(stderr, "looks like a copy") {
		t.Errorf("destroy in a copy of the moved directory: %v\n%s", err, stderr)
	}
	out, stderr, err := lab(t, moved, "plan")
	if err != nil || strings.Count(out, "(exists, reused)") != 3 || !strings.Contains(out, "Plan: 0 to add, 0 to replace, 0 to destroy") {
		t.Errorf("plan in the moved directory does not reuse the kept machines: %v\n%s%s", err, out, stderr)
	}
	if now := namespaces(t, "e2e-moved"); len(now) != len(kept) || len(kept) != 2 {
		t.Fatalf("machines before %v, after the copy's and plan's attempts %v", kept, now)
	}
	if out, stderr, err := lab(t, moved, "destroy", "-auto-approve"); err != nil || !strings.Contains(out, "Destroy complete") {
		t.Errorf("destroy in the moved directory: %v\n%s%s", err, out, stderr)
	}
	if left := namespaces(t, "e2e-moved"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

func nsSet(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			set[f[0]] = true
		}
	}
	return set
}

// TestLostStateOrphansForReal: after the state is lost, -orphans sweeps
// only this workspace (a new one) and names the lost workspace's objects,
// which -workspace then removes.
func TestLostStateOrphansForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-lost", twin("veth"))
	if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep"); err != nil {
		t.Fatalf("apply -keep: %v\n%s%s", err, out, stderr)
	}
	os.RemoveAll(filepath.Join(dir, ".lab"))
	_, stderr, err := lab(t, dir, "destroy", "-auto-approve", "-orphans")
	if err != nil || !strings.Contains(stderr, "Left alone: 2 object(s) of lab \"e2e-lost\" in workspace ") {
		t.Fatalf("destroy -orphans after state loss: %v\n%s", err, stderr)
	}
	if left := namespaces(t, "e2e-lost"); len(left) != 2 {
		t.Fatalf("another workspace's machines were touched: %v", left)
	}
	_, ws, _ := strings.Cut(stderr, "-orphans -workspace ")
	ws, _, _ = strings.Cut(ws, "`")
	if out, stderr, err := lab(t, dir, "destroy", "-auto-approve", "-orphans", "-workspace", ws); err != nil {
		t.Fatalf("destroy -orphans -workspace %s: %v\n%s%s", ws, err, out, stderr)
	}
	if left := namespaces(t, "e2e-lost"); len(left) != 0 {
		t.Errorf("left after sweeping workspace %s: %v", ws, left)
	}
}

// TestDestroyWithBrokenSpecForReal: a spec that no longer loads does not
// keep machines alive — destroy works from the state alone.
func TestDestroyWithBrokenSpecForReal(t *testing.T) {
	needNamespaces(t)
	dir := labDir(t, "e2e-broken", twin("veth"))
	if out, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep"); err != nil {
		t.Fatalf("apply -keep: %v\n%s%s", err, out, stderr)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "lab.hcl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\npair \"oops\" {\n")
	f.Close()
	out, stderr, err := lab(t, dir, "destroy", "-auto-approve")
	if err != nil || !strings.Contains(stderr, "destroying what the state lists") || !strings.Contains(out, "Destroy complete") {
		t.Errorf("destroy with a broken spec: %v\n%s%s", err, out, stderr)
	}
	if left := namespaces(t, "e2e-broken"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}
