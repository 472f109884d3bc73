package bhyve

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestParseVMList: vm list's AUTO column reads "Yes [n]" for a VM started
// at boot and STATE "Running (PID)": both hold blanks. Rows as
// lib/vm-core core::list prints them through column -t.
func TestParseVMList(t *testing.T) {
	out := columnT([][]string{
		{"NAME", "DATASTORE", "LOADER", "CPU", "MEMORY", "VNC", "AUTO", "STATE"},
		{"gw", "default", "bhyveload", "1", "512M", "-", "Yes [1]", "Running (1432)"},
		{"lab-t-cc-s", "default", "bhyveload", "1", "2048M", "-", "No", "Bootloader (4250)"},
		{"lab-t-cc-c", "default", "uefi", "2", "2048M", "0.0.0.0:5900", "No", "Locked (bhyve1)"},
		{"win", "default", "uefi", "4", "8G", "-", "Yes [12]", "Stopped"},
	})
	want := map[string]string{"gw": "Running (1432)", "lab-t-cc-s": "Bootloader (4250)", "lab-t-cc-c": "Locked (bhyve1)", "win": "Stopped"}
	got := ParseVMList(out)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q\n%s", k, got[k], v, out)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v", got)
	}
}

// startRaw clones and starts a vm-bhyve VM the way the provider does, but
// returns at once (vm start backgrounds the boot).
func startRaw(t *testing.T, p *Provider, vm string) {
	t.Helper()
	ctx := context.Background()
	for _, argv := range [][]string{{"zfs", "snapshot", "-r", "zroot/vm/fbsd14-tmpl@" + vm}, {"vm", "clone", "fbsd14-tmpl@" + vm, vm}, {"vm", "start", vm}} {
		if _, err := p.run(ctx, argv...); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDeleteWhileBooting: a VM deleted while vm-bhyve still boots it —
// Stopped before its background run locked it, Bootloader while
// bhyveload waits — is powered off where it can be, waited for until
// run.lock is gone, and destroyed with its template snapshot.
func TestDeleteWhileBooting(t *testing.T) {
	for _, at := range []struct {
		name  string
		delay time.Duration
		want  string // in the transcript
	}{
		{"bootloader", 20 * time.Millisecond, "vm poweroff -f lab-t-cc-s"},
		{"running", 80 * time.Millisecond, "vm poweroff -f lab-t-cc-s"},
	} {
		t.Run(at.name, func(t *testing.T) {
			p, h, srv := newHost(t, `backend = "vm-bhyve"`)
			startRaw(t, p, "lab-t-cc-s")
			time.Sleep(at.delay)
			h.mu.Lock()
			st, _, _ := h.phase("lab-t-cc-s", time.Now())
			h.mu.Unlock()
			if at.name == "bootloader" && !strings.HasPrefix(st, "Bootloader") || at.name == "running" && !strings.HasPrefix(st, "Running") {
				t.Fatalf("the fake VM is %q", st)
			}
			if err := p.Delete(context.Background(), machine.Instance{Kind: "machine", Name: "t-cc-s", Owner: machine.Owner{Lab: "t"}}); err != nil {
				t.Fatal(err)
			}
			log := strings.Join(srv.Commands(), "\n")
			if !strings.Contains(log, at.want) {
				t.Errorf("transcript lacks %q:\n%s", at.want, log)
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left: %v", left)
			}
		})
	}
}

// TestDeleteStaleLock: a run.lock nobody removes (another host's, or a
// crash's) keeps the VM Locked; Delete gives up after lockTimeout naming
// the file, instead of running vm destroy into its refusal.
func TestDeleteStaleLock(t *testing.T) {
	p, h, srv := newHost(t, `backend = "vm-bhyve"`)
	p.lockTimeout = 30 * time.Millisecond
	startRaw(t, p, "lab-t-cc-s")
	h.mu.Lock()
	h.vms["lab-t-cc-s"].staleLock = "bhyve2"
	h.mu.Unlock()
	err := p.Delete(context.Background(), machine.Instance{Kind: "machine", Name: "t-cc-s", Owner: machine.Owner{Lab: "t"}})
	if err == nil {
		t.Fatal("Delete succeeded")
	}
	for _, w := range []string{"lab-t-cc-s", `"Locked (bhyve2)"`, "/zroot/vm/lab-t-cc-s/run.lock"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if strings.Contains(strings.Join(srv.Commands(), "\n"), "vm destroy") {
		t.Error("vm destroy ran against a locked VM")
	}
}

// TestStartFailsBeforeLock: vm::run gives up before it locks the VM (no
// firmware, no loader): the VM stays Stopped and Create fails with the
// line vm-bhyve logged.
func TestStartFailsBeforeLock(t *testing.T) {
	p, h, _ := newHost(t, `backend = "vm-bhyve"`)
	p.startGrace = 30 * time.Millisecond
	ctx := context.Background()
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc"})
	if err != nil {
		t.Fatal(err)
	}
	// lib/vm-run vm::uefi: "fatal; unable to locate firmware ${_bootrom}",
	// then exit 15 before vm::lock; the clone has the template's loader.
	m := testMachine("client", "linux", link)
	h.mu.Lock()
	h.vms["ubuntu-tmpl"].runFails = "fatal; unable to locate firmware /usr/local/share/uefi-firmware/BHYVE_UEFI.fd"
	h.mu.Unlock()
	in, err := p.Create(ctx, m)
	if err == nil || !strings.Contains(err.Error(), "unable to locate firmware") || !strings.Contains(err.Error(), "Stopped") {
		t.Fatalf("Create: %v", err)
	}
	for _, x := range []machine.Instance{in, link} {
		if err := p.Delete(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	if left := h.left(); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
}

// TestUplinkOnce: the uplink joins the first lab-made switch only; a
// second link is refused before anything is made, naming the bridge
// that has it. Deleting the first link gives the uplink its MTU back.
func TestUplinkOnce(t *testing.T) {
	for _, backend := range []string{"vm-bhyve", "bhyve"} {
		t.Run(backend, func(t *testing.T) {
			p, h, _ := newHost(t, "backend = \""+backend+"\"\nuplink = \"igb1\"")
			ctx := context.Background()
			a, err := p.Link(ctx, providers.LinkSpec{Address: "pair.a.link", LabID: "t", Pair: "a", Name: "t-a", MTU: 9000})
			if err != nil {
				t.Fatal(err)
			}
			if got := h.mtu("igb1"); got != 9000 {
				t.Errorf("uplink MTU %d while on the 9000 link", got)
			}
			before := len(h.left())
			_, err = p.Link(ctx, providers.LinkSpec{Address: "pair.b.link", LabID: "t", Pair: "b", Name: "t-b", MTU: 9000})
			if err == nil || !strings.Contains(err.Error(), "already a member of bridge") || !strings.Contains(err.Error(), "lab-t-a") && !strings.Contains(err.Error(), "pair.a.link") {
				t.Fatalf("second link: %v", err)
			}
			if len(h.left()) != before {
				t.Errorf("the refused link left %v", h.left())
			}
			if err := p.Delete(ctx, a); err != nil {
				t.Fatal(err)
			}
			if got := h.mtu("igb1"); got != 1500 {
				t.Errorf("uplink MTU %d after the link is gone, want 1500 back", got)
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left: %v", left)
			}
		})
	}
}

// TestRawJumboKeepsMTU: in raw mode the uplink gets the link's MTU before
// it joins the bridge, so the bridge, the taps and the uplink all carry
// 9000 (an uplink joining at 1500 would define the bridge's MTU as the
// first member and hold every tap to it).
func TestRawJumboKeepsMTU(t *testing.T) {
	p, h, _ := newHost(t, "backend = \"bhyve\"\nuplink = \"igb1\"")
	ctx := context.Background()
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc", MTU: 9000})
	if err != nil {
		t.Fatal(err)
	}
	m := testMachine("server", "freebsd", link)
	m.Template.Source = "fbsd14-zvol"
	in, err := p.Create(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{link.Attrs["bridge"], in.Attrs["tap"], "igb1"} {
		if got := h.mtu(n); got != 9000 {
			t.Errorf("%s: MTU %d, want 9000", n, got)
		}
	}
	for _, x := range []machine.Instance{in, link} {
		if err := p.Delete(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.mtu("igb1"); got != 1500 {
		t.Errorf("uplink MTU %d after delete, want 1500", got)
	}
}

// TestValeRefusesUplink: vm-bhyve cannot add an interface to a VALE
// switch, so the provider block is refused.
func TestValeRefusesUplink(t *testing.T) {
	_, d := configure(t, "host = \"192.0.2.5\"\nnetwork_backend = \"vale\"\nuplink = \"igb1\"")
	if !d.HasErrors() || !strings.Contains(d.Error(), "vale switch manually") {
		t.Errorf("diags: %v", d)
	}
}

// TestCloneSnapshotOnlyOurs: the template snapshot a clone came from is
// removed with the VM; snapshots lab did not take stay.
func TestCloneSnapshotOnlyOurs(t *testing.T) {
	p, h, _ := newHost(t, `backend = "vm-bhyve"`)
	ctx := context.Background()
	h.mu.Lock()
	h.datasets["zroot/vm/fbsd14-tmpl@2026-11-01-09:00:00"] = &fakeDS{} // vm snapshot's default name
	h.datasets["zroot/vm/fbsd14-tmpl/disk0@2026-11-01-09:00:00"] = &fakeDS{}
	h.mu.Unlock()
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := p.Create(ctx, testMachine("server", "freebsd", link))
	if err != nil {
		t.Fatal(err)
	}
	if in.Attrs["snapshot"] != "zroot/vm/fbsd14-tmpl@lab-t-cc-s" {
		t.Errorf("snapshot attr %q", in.Attrs["snapshot"])
	}
	for _, x := range []machine.Instance{in, link} {
		if err := p.Delete(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var snaps []string
	for n := range h.datasets {
		if strings.Contains(n, "@") {
			snaps = append(snaps, n)
		}
	}
	sort.Strings(snaps)
	if strings.Join(snaps, " ") != "zroot/vm/fbsd14-tmpl/disk0@2026-11-01-09:00:00 zroot/vm/fbsd14-tmpl@2026-11-01-09:00:00" {
		t.Errorf("snapshots left: %v", snaps)
	}
}
