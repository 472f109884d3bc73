package bhyve

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestCreateFailuresCleanUp: a failing host command makes Create fail
// with the command's own output, and Delete of what Create returned (or
// of the pending name alone) removes every part that was made.
func TestCreateFailuresCleanUp(t *testing.T) {
	tests := []struct {
		name, extra string
		failExpr    string
		stderr      string
		wantErr     []string
	}{
		{name: "zfs clone fails", extra: `backend = "bhyve"`, failExpr: `^zfs clone `,
			stderr:  "cannot create 'zroot/vm/lab-t-cc-s': out of space\n",
			wantErr: []string{"clone zroot/vm/lab-t-cc-s", "zfs clone -o", "zroot/vm/fbsd14-zvol@lab-t-cc-s", "out of space", "pair.cc.server"}},
		{name: "bhyve exits", extra: `backend = "bhyve"`, failExpr: `^pgrep -F `,
			wantErr: []string{"bhyve exited", "unhandled VMEXIT", "lab-t-cc-s"}},
		{name: "vm clone fails", extra: `backend = "vm-bhyve"`, failExpr: `^vm clone `,
			stderr:  "/usr/local/sbin/vm: fbsd14-tmpl is running; stop it before cloning\n",
			wantErr: []string{"clone lab-t-cc-s from fbsd14-tmpl", "stop it before cloning"}},
		{name: "vm start fails", extra: `backend = "vm-bhyve"`, failExpr: `^vm start `,
			stderr:  "/usr/local/sbin/vm: failed to find a suitable boot loader\n",
			wantErr: []string{"start lab-t-cc-s", "suitable boot loader"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, h, _ := newHost(t, tc.extra)
			ctx := context.Background()
			link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc", MTU: 9000})
			if err != nil {
				t.Fatal(err)
			}
			m := testMachine("server", "freebsd", link)
			if p.cfg.Backend == BackendRaw {
				m.Template.Source = "fbsd14-zvol"
			}
			h.failOn(tc.failExpr, tc.stderr, 1)
			in, err := p.Create(ctx, m)
			if err == nil {
				t.Fatal("Create succeeded")
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			h.fail = nil
			// What the engine recorded before Create: the name only.
			pending := machine.Instance{Address: m.Address, Kind: "machine", Name: m.Name, Owner: m.Owner(), Attrs: map[string]string{"lab_id": "t"}}
			if in.Name != "" {
				pending = in
			}
			for _, in := range []machine.Instance{pending, link} {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left on the host: %v", left)
			}
		})
	}
}

// TestSSHDropMidTeardown: the host connection drops during Delete; the
// error says so, and once the host answers again Delete finishes the job.
func TestSSHDropMidTeardown(t *testing.T) {
	for _, backend := range []string{"vm-bhyve", "bhyve"} {
		t.Run(backend, func(t *testing.T) {
			p, h, srv := newHost(t, `backend = "`+backend+`"`)
			ctx := context.Background()
			link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: "t", Pair: "cc", Name: "t-cc"})
			if err != nil {
				t.Fatal(err)
			}
			m := testMachine("server", "freebsd", link)
			if backend == "bhyve" {
				m.Template.Source = "fbsd14-zvol"
			}
			in, err := p.Create(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			srv.DropAfter(2)
			err = p.Delete(ctx, in)
			if err == nil || !strings.Contains(err.Error(), "lost") || !strings.Contains(err.Error(), "lab-t-cc-s") {
				t.Fatalf("Delete during a drop: %v", err)
			}
			srv.DropAfter(1 << 30) // the host is back
			for _, x := range []machine.Instance{in, link} {
				if err := p.Delete(ctx, x); err != nil {
					t.Fatal(err)
				}
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left on the host: %v", left)
			}
		})
	}
}

// TestOrphans: List finds a lab's leftovers by name alone (state lost),
// only that lab's, and Delete removes them.
func TestOrphans(t *testing.T) {
	for _, backend := range []string{"vm-bhyve", "bhyve"} {
		t.Run(backend, func(t *testing.T) {
			p, h, _ := newHost(t, `backend = "`+backend+`"`)
			ctx := context.Background()
			for _, lab := range []string{"t", "other"} {
				link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.cc.link", LabID: lab, Pair: "cc", Name: lab + "-cc"})
				if err != nil {
					t.Fatal(err)
				}
				m := testMachine("server", "freebsd", link)
				m.Name, m.LabID = lab+"-cc-s", lab
				if backend == "bhyve" {
					m.Template.Source = "fbsd14-zvol"
				}
				if _, err := p.Create(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			found, err := p.List(ctx, machine.Owner{Lab: "t"})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, in := range found {
				names = append(names, in.Kind+":"+in.Name)
			}
			if strings.Join(names, " ") != "link:t-cc machine:t-cc-s" {
				t.Fatalf("List: %v", names)
			}
			for _, kind := range []string{"machine", "link"} {
				for _, in := range found {
					if in.Kind == kind {
						if err := p.Delete(ctx, in); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			for _, l := range h.left() {
				if strings.Contains(l, "lab-t-") {
					t.Errorf("left: %s", l)
				}
			}
			if len(h.left()) == 0 {
				t.Error("the other lab's objects were removed too")
			}
		})
	}
}
