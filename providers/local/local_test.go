package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

func TestCPUSets(t *testing.T) {
	tests := []struct {
		vcpu, ncpu     int
		server, client []int
	}{
		{1, 2, []int{0}, []int{1}},
		{2, 4, []int{0, 1}, []int{3, 2}},
		{2, 2, []int{0, 1}, []int{1, 0}},
		{4, 2, []int{0, 1}, []int{1, 0}},
		{0, 2, nil, nil},
	}
	for _, tc := range tests {
		s, c := cpuSets(tc.vcpu, tc.ncpu)
		if !reflect.DeepEqual(s, tc.server) || !reflect.DeepEqual(c, tc.client) {
			t.Errorf("cpuSets(%d, %d) = %v, %v; want %v, %v", tc.vcpu, tc.ncpu, s, c, tc.server, tc.client)
		}
	}
}

func TestLinkAddrs(t *testing.T) {
	tests := []struct {
		index          int
		server, client string
	}{
		{0, "198.18.0.1", "198.18.0.2"},
		{1, "198.18.0.5", "198.18.0.6"},
		{64, "198.18.1.1", "198.18.1.2"},
		{32767, "198.19.255.253", "198.19.255.254"},
		{32768, "198.18.0.1", "198.18.0.2"},
	}
	for _, tc := range tests {
		s, c := linkAddrs(tc.index)
		if s != tc.server || c != tc.client {
			t.Errorf("linkAddrs(%d) = %s, %s; want %s, %s", tc.index, s, c, tc.server, tc.client)
		}
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := parseCPUList("0-2,5")
	if err != nil || !reflect.DeepEqual(got, []int{0, 1, 2, 5}) {
		t.Errorf("parseCPUList = %v, %v", got, err)
	}
	if _, err := parseCPUList("x"); err == nil {
		t.Error("bad list accepted")
	}
}

func TestVethNamesFitIFNAMSIZ(t *testing.T) {
	s, c := vethNames(machine.Owner{Lab: strings.Repeat("a", 24), Workspace: "0123abcd"}, "pair."+strings.Repeat("b", 60)+".link")
	if len(s) > 15 || len(c) > 15 || s == c {
		t.Errorf("veth names %q %q", s, c)
	}
}

func TestDeleteRefusesForeignNamespace(t *testing.T) {
	p := New()
	err := p.deleteNamespace(context.Background(), machine.Owner{Lab: "x", Workspace: "0123abcd"}, "host-ns", true)
	if err == nil || !strings.Contains(err.Error(), "not made by lab") {
		t.Errorf("deleteNamespace(host-ns) = %v", err)
	}
}

// TestLifecycleForReal creates a link and two machines in real namespaces,
// checks the link works, lists, deletes twice, and checks nothing is left.
func TestLifecycleForReal(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	p := New()
	labID := fmt.Sprintf("t%d", os.Getpid())
	owner := machine.Owner{Lab: labID, Workspace: "0123abcd"}
	var made []machine.Instance
	t.Cleanup(func() {
		for i := len(made) - 1; i >= 0; i-- {
			_ = p.Delete(ctx, made[i])
		}
	})
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.x.link", LabID: labID, Workspace: owner.Workspace, Pair: "x", MTU: 9000, Index: 3})
	if err != nil {
		t.Fatal(err)
	}
	made = append(made, link)
	var ins []machine.Instance
	for _, role := range []string{"server", "client"} {
		in, err := p.Create(ctx, machine.Machine{Address: "pair.x." + role, LabID: labID, Workspace: owner.Workspace, Pair: "x", Role: role,
			Name: labID + "-x-" + role[:1], VCPU: 1, Link: link})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, in)
		ins = append(ins, in)
	}
	if ins[0].Endpoint.Addr != "198.18.0.13" || ins[1].Endpoint.Addr != "198.18.0.14" {
		t.Errorf("addresses %+v %+v", ins[0].Endpoint, ins[1].Endpoint)
	}
	if id := ins[0].Endpoint.TemplateID; !strings.HasPrefix(id, "linux ") || !strings.Contains(id, "iperf 3") {
		t.Errorf("template identity %q: want the kernel and the tools' versions", id)
	}
	for _, in := range ins {
		out, err := exec.Command("ip", "-n", in.ID, "-o", "addr", "show", "dev", "eth0").CombinedOutput()
		if err != nil || !strings.Contains(string(out), in.Endpoint.Addr+"/30") {
			t.Errorf("%s: eth0 has no %s: %v\n%s", in.ID, in.Endpoint.Addr, err, out)
		}
		out, _ = exec.Command("ip", "-n", in.ID, "link", "show", "dev", "eth0").CombinedOutput()
		if !strings.Contains(string(out), "mtu 9000") || !strings.Contains(string(out), "state UP") {
			t.Errorf("%s: eth0 not up at MTU 9000:\n%s", in.ID, out)
		}
	}
	found, err := p.List(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Errorf("List found %d objects, want the 2 namespaces: %+v", len(found), found)
	}
	for _, in := range []machine.Instance{ins[0], ins[1], link} {
		for i := 0; i < 2; i++ { // idempotent
			if err := p.Delete(ctx, in); err != nil {
				t.Errorf("delete %s (try %d): %v", in.Address, i+1, err)
			}
		}
		if _, ok, err := p.Read(ctx, in); ok || err != nil {
			t.Errorf("%s still exists after delete (err %v)", in.Address, err)
		}
	}
	if other, _ := p.List(ctx, machine.Owner{Lab: labID, Workspace: "ffffffff"}); len(other) != 0 {
		t.Errorf("another workspace's List found this one's objects: %+v", other)
	}
	if found, _ := p.List(ctx, owner); len(found) != 0 {
		t.Errorf("left after delete: %+v", found)
	}
}

// TestDeletePendingByName deletes objects recorded only by name (no id):
// what a crash between the state write and the create's end leaves — what
// carries this lab's and workspace's tag, and, for a record marked
// Pending, what carries no tag at all; never another's.
func TestDeletePendingByName(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	p := New()
	labID := fmt.Sprintf("p%d", os.Getpid())
	owner := machine.Owner{Lab: labID, Workspace: "0123abcd"}
	link, err := p.Link(ctx, providers.LinkSpec{Address: "pair.y.link", LabID: labID, Workspace: owner.Workspace, Pair: "y"})
	if err != nil {
		t.Fatal(err)
	}
	pendingLink := machine.Instance{Address: "pair.y.link", Kind: "link", Owner: owner}
	if err := p.Delete(ctx, pendingLink); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := p.Read(ctx, link); ok {
		t.Error("pending link not removed by name")
	}

	tests := []struct {
		name    string
		tag     string // lo's alias; "" leaves it untagged
		pending bool   // the record says the create never reported success
		deleted bool
	}{
		{"tagged as ours", owner.Tag("pair.y.server"), false, true},
		{"untagged", "", false, false},
		{"untagged, pending record", "", true, true},
		{"another workspace", machine.Owner{Lab: labID, Workspace: "ffffffff"}.Tag("pair.y.server"), false, false},
		{"another workspace, pending record", machine.Owner{Lab: labID, Workspace: "ffffffff"}.Tag("pair.y.server"), true, false},
		{"another lab with a longer name", machine.Owner{Lab: labID + "-y", Workspace: owner.Workspace}.Tag("pair.s"), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := labID + "-y-s"
			ns := Namespace(name)
			if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			defer exec.Command("ip", "netns", "del", ns).Run()
			if tc.tag != "" {
				if out, err := exec.Command("ip", "-n", ns, "link", "set", "dev", "lo", "alias", tc.tag).CombinedOutput(); err != nil {
					t.Fatalf("%v %s", err, out)
				}
			}
			err := p.Delete(ctx, machine.Instance{Address: "pair.y.server", Kind: "machine", Name: name, Owner: owner, Pending: tc.pending})
			names, _ := p.namespaces(ctx)
			still := strings.Contains(" "+strings.Join(names, " ")+" ", " "+ns+" ")
			if tc.deleted {
				if err != nil || still {
					t.Errorf("our pending namespace: err %v, still there %v", err, still)
				}
				return
			}
			var no *providers.NotOwnedError
			if !errors.As(err, &no) || !still {
				t.Errorf("someone else's namespace: err %v, still there %v (want a refusal and the namespace kept)", err, still)
			}
			if err != nil && !strings.Contains(err.Error(), "is not this lab's") {
				t.Errorf("refusal does not say why: %v", err)
			}
		})
	}
}

// TestSharesHostKernel: the local back end declares that its guests share
// this host's kernel; an unknown type does not.
func TestSharesHostKernel(t *testing.T) {
	if !providers.SharesHostKernel(TypeName) || providers.SharesHostKernel("no-such-back-end") {
		t.Errorf("SharesHostKernel(local) = %v, (unknown) = %v", providers.SharesHostKernel(TypeName), providers.SharesHostKernel("no-such-back-end"))
	}
}
