package bhyve

import (
	"context"
	"strings"
	"testing"

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
			made := map[string][]providers.Instance{}
			for _, ws := range []string{"w1", "w2"} {
				link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Workspace: ws, Pair: "cc", Name: "t-cc-" + ws})
				if err != nil {
					t.Fatal(err)
				}
				m := machine("server", "freebsd", link)
				m.Name, m.Workspace = "t-cc-"+ws+"-s", ws
				if backend == "bhyve" {
					m.Template.Source = "fbsd14-zvol"
				}
				in, err := p.Create(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				made[ws] = []providers.Instance{in, link}
			}
			w1 := providers.Owner{Lab: "t", Workspace: "w1"}
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
			err = p.Delete(ctx, providers.Instance{Kind: "machine", Name: "t-cc-u-s", Address: "pair.u.server", Owner: w1})
			if err == nil || !strings.Contains(err.Error(), "zroot/vm/lab-t-cc-u-s") || !strings.Contains(err.Error(), "no tag") {
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
			if w2, _ := p.List(ctx, providers.Owner{Lab: "t", Workspace: "w2"}); len(w2) != 2 {
				t.Errorf("w2's objects: %v", w2)
			}
		})
	}
}
