package bhyve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestOwnershipExact: two workspaces of one lab on one host. List returns
// exactly one workspace's objects (by tag, not by name); Delete refuses a
// machine another workspace owns, or one that carries no tag, naming it,
// and touches nothing of it.
func TestOwnershipExact(t *testing.T) {
	for _, backend := range []string{"vm-bhyve", "bhyve"} {
		t.Run(backend, func(t *testing.T) {
			p, h, _ := newHost(t, `backend = "`+backend+`"`)
			ctx := context.Background()
			made := map[string][]machine.Instance{}
			for _, ws := range []string{"w1", "w2"} {
				link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Workspace: ws, Pair: "cc", Name: "t-cc-" + ws})
				if err != nil {
					t.Fatal(err)
				}
				m := testMachine("server", "freebsd", link)
				m.Name, m.Workspace = "t-cc-"+ws+"-s", ws
				if backend == "bhyve" {
					m.Template.Source = "fbsd14-zvol"
				}
				in, err := p.Create(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				made[ws] = []machine.Instance{in, link}
			}
			w1 := machine.Owner{Lab: "t", Workspace: "w1"}
			found, err := p.List(ctx, w1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range found {
				got = append(got, in.Kind+":"+in.Address+":"+in.Name)
			}
			sw := switchName("lab-t-cc-w1")
			wantLink := "link:pair.cc.link:" + sw
			if backend == "bhyve" {
				wantLink = "link:pair.cc.link:bridge0"
			}
			if strings.Join(got, " ") != wantLink+" machine:pair.cc.server:t-cc-w1-s" {
				t.Errorf("List(w1) = %v", got)
			}

			// w2's machine, asked for under w1's owner (a record naming it).
			stolen := made["w2"][0]
			stolen.Owner = w1
			err = p.Delete(ctx, stolen)
			if err == nil || !strings.Contains(err.Error(), "zroot/vm/lab-t-cc-w2-s") || !strings.Contains(err.Error(), "ws=w2") {
				t.Errorf("Delete of w2's machine as w1: %v", err)
			}

			// An object of lab's name with no tag at all.
			h.mu.Lock()
			h.datasets["zroot/vm/lab-t-cc-u-s"] = &fakeDS{}
			h.mu.Unlock()
			err = p.Delete(ctx, machine.Instance{Kind: "machine", Name: "t-cc-u-s", Address: "pair.u.server", Owner: w1})
			if err == nil || !strings.Contains(err.Error(), "zroot/vm/lab-t-cc-u-s") || !strings.Contains(err.Error(), "no lab tag") {
				t.Errorf("Delete of an untagged dataset: %v", err)
			}
			h.mu.Lock()
			_, still := h.datasets["zroot/vm/lab-t-cc-u-s"]
			delete(h.datasets, "zroot/vm/lab-t-cc-u-s")
			h.mu.Unlock()
			if !still {
				t.Error("the untagged dataset was destroyed")
			}

			for _, in := range found {
				if in.Kind == "machine" {
					if err := p.Delete(ctx, in); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, in := range found {
				if in.Kind == "link" {
					if err := p.Delete(ctx, in); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, l := range h.left() {
				if strings.Contains(l, "w1") {
					t.Errorf("w1's %s left", l)
				}
			}
			if again, _ := p.List(ctx, w1); len(again) != 0 {
				t.Errorf("List(w1) after delete: %v", again)
			}
			if w2, _ := p.List(ctx, machine.Owner{Lab: "t", Workspace: "w2"}); len(w2) != 2 {
				t.Errorf("w2's objects: %v", w2)
			}
		})
	}
}

// TestValeOwnershipExact: a VALE switch has no interface to describe;
// its owner record is lab_owner_NAME in vm-bhyve's system.conf. A
// hand-made VALE switch with lab's name (no record) is refused and left
// alone, and so is one recorded for another workspace; lab's own is
// removed with its record; List (lab destroy -orphans) finds exactly the
// ones recorded with the owner's tag.
func TestValeOwnershipExact(t *testing.T) {
	p, h, _ := newHost(t, `network_backend = "vale"`)
	ctx := context.Background()
	w1 := machine.Owner{Lab: "t", Workspace: "w1"}
	spec := func(ws string) providers.LinkSpec {
		return providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Workspace: ws, Pair: "cc", Name: "t-cc-" + ws}
	}
	if _, err := p.Link(ctx, spec("w1")); err != nil {
		t.Fatal(err)
	}
	sw := switchName("lab-t-cc-w1")
	h.mu.Lock()
	rec, vale := h.sysConf[valeOwnerKey(sw)], h.switches[sw] != nil && h.switches[sw].vale
	// By hand: a VALE switch with the name lab would give w2's link, and
	// one recorded as w3's.
	hand, other := switchName("lab-t-cc-w2"), switchName("lab-t-cc-w3")
	h.switches[hand], h.switches[other] = &fakeSwitch{vale: true}, &fakeSwitch{vale: true}
	h.sysConf[valeOwnerKey(other)] = machine.Owner{Lab: "t", Workspace: "w3"}.Tag("pair.cc.link")
	h.mu.Unlock()
	if !vale || rec != w1.Tag("pair.cc.link") {
		t.Fatalf("switch %s vale=%v, record %q", sw, vale, rec)
	}

	if _, err := p.Link(ctx, spec("w2")); err == nil || !strings.Contains(err.Error(), hand) || !strings.Contains(err.Error(), "no lab tag") {
		t.Errorf("Link over a hand-made VALE switch: %v", err)
	}
	for _, tc := range []struct{ sw, owner string }{{hand, "no lab tag"}, {other, "ws=w3"}} {
		err := p.Delete(ctx, machine.Instance{Kind: "link", Address: "pair.cc.link", Name: "t-cc-w1", Owner: w1,
			Attrs: map[string]string{"switch": tc.sw}})
		var no *providers.NotOwnedError
		if !errors.As(err, &no) || !strings.Contains(err.Error(), tc.owner) {
			t.Errorf("Delete of %s as w1: %v", tc.sw, err)
		}
	}

	found, err := p.List(ctx, w1)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Kind != "link" || found[0].Name != sw || found[0].Address != "pair.cc.link" {
		t.Fatalf("List(w1) = %+v, want only %s", found, sw)
	}
	if err := p.Delete(ctx, found[0]); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	_, swLeft := h.switches[sw]
	_, recLeft := h.sysConf[valeOwnerKey(sw)]
	_, handLeft := h.switches[hand]
	_, otherLeft := h.switches[other]
	otherRec := h.sysConf[valeOwnerKey(other)]
	h.mu.Unlock()
	if swLeft || recLeft {
		t.Errorf("lab's VALE switch left: switch %v, record %v", swLeft, recLeft)
	}
	if !handLeft || !otherLeft || otherRec == "" {
		t.Errorf("a switch lab does not own was touched: hand-made %v, w3's %v (record %q)", handLeft, otherLeft, otherRec)
	}
	if again, _ := p.List(ctx, w1); len(again) != 0 {
		t.Errorf("List(w1) after delete: %v", again)
	}

	// A record left by a create interrupted before `vm switch create`
	// goes with the next Link of that name; another owner's stays.
	h.mu.Lock()
	h.sysConf[valeOwnerKey(sw)] = w1.Tag("pair.cc.link")
	h.mu.Unlock()
	if _, err := p.Link(ctx, spec("w1")); err != nil {
		t.Fatal(err)
	}
	if got, _ := p.List(ctx, w1); len(got) != 1 {
		t.Errorf("after re-Link: %+v", got)
	}
	h.mu.Lock()
	stale := switchName("lab-t-cc-w4")
	h.sysConf[valeOwnerKey(stale)] = machine.Owner{Lab: "t", Workspace: "w3"}.Tag("pair.cc.link")
	h.mu.Unlock()
	if _, err := p.Link(ctx, spec("w4")); err == nil || !strings.Contains(err.Error(), "ws=w3") {
		t.Errorf("Link over w3's record: %v", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sysConf[valeOwnerKey(stale)] == "" || h.switches[stale] != nil {
		t.Errorf("w3's record was replaced or a switch made: %q", h.sysConf[valeOwnerKey(stale)])
	}
}
