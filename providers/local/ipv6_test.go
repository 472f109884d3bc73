package local

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestLinkAddrs6: unique local addresses (fd00::/8), one /64 per link
// index, ::1 and ::2 in it, and another prefix for another lab or
// workspace.
func TestLinkAddrs6(t *testing.T) {
	ula := netip.MustParsePrefix("fd00::/8")
	a := machine.Owner{Lab: "a", Workspace: "0123abcd"}
	s0, c0 := linkAddrs6(a, 0)
	s1, _ := linkAddrs6(a, 1)
	sb, _ := linkAddrs6(machine.Owner{Lab: "b", Workspace: "0123abcd"}, 0)
	sw, _ := linkAddrs6(machine.Owner{Lab: "a", Workspace: "ffffffff"}, 0)
	p := func(s string) netip.Prefix { return netip.PrefixFrom(netip.MustParseAddr(s), 64).Masked() }
	for _, s := range []string{s0, c0, s1, sb, sw} {
		if !ula.Contains(netip.MustParseAddr(s)) {
			t.Errorf("%s is not a unique local address", s)
		}
	}
	if p(s0) != p(c0) || !strings.HasSuffix(s0, "::1") || !strings.HasSuffix(c0, "::2") {
		t.Errorf("link 0: %s, %s: want ::1 and ::2 of one /64", s0, c0)
	}
	if p(s0) == p(s1) {
		t.Errorf("links 0 and 1 share %s", p(s0))
	}
	if p(s0) == p(sb) || p(s0) == p(sw) {
		t.Errorf("two labs or workspaces share a prefix: %s %s %s", s0, sb, sw)
	}
	if again, _ := linkAddrs6(a, 0); again != s0 {
		t.Errorf("not stable: %s then %s", s0, again)
	}
}

// reach runs a one-second iperf3 test over IPv6 from namespace client to
// addr in namespace server (this machine has no ping); without iperf3 it
// only logs that it could not check.
func reach(t *testing.T, server, client, addr string) {
	t.Helper()
	if _, err := exec.LookPath("iperf3"); err != nil {
		t.Log("no iperf3: reachability not checked")
		return
	}
	srv := exec.Command("ip", "netns", "exec", server, "iperf3", "-s", "-1", "-B", addr, "-p", "5399")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	var out []byte
	var err error
	for range 50 {
		out, err = exec.Command("ip", "netns", "exec", client, "iperf3", "-6", "-c", addr, "-p", "5399", "-t", "1").CombinedOutput()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("client cannot reach %s over TCP: %v\n%s", addr, err, out)
}

// TestRoutedIPv6ForReal makes a routed pair with IPv6 links in real
// namespaces: every end has its unique local address (not tentative:
// nodad), the router forwards IPv6 in its namespace only, the client
// reaches the server's IPv6 address through it, and the host's own
// forwarding setting is what it was.
func TestRoutedIPv6ForReal(t *testing.T) {
	needRoot(t)
	ctx := context.Background()
	hostFwd, _ := os.ReadFile("/proc/sys/net/ipv6/conf/all/forwarding")
	p := New()
	labID := fmt.Sprintf("t6%d", os.Getpid())
	owner := machine.Owner{Lab: labID, Workspace: "0123abcd"}
	var made []machine.Instance
	t.Cleanup(func() {
		for i := len(made) - 1; i >= 0; i-- {
			if err := p.Delete(ctx, made[i]); err != nil {
				t.Errorf("cleanup: %v", err)
			}
		}
		if left, _ := p.List(ctx, owner); len(left) != 0 {
			t.Errorf("left after delete: %+v", left)
		}
	})
	var links []machine.Instance
	for i, addr := range []string{"pair.x.link", "pair.x.client_link"} {
		l, err := p.Link(ctx, providers.LinkSpec{Address: addr, LabID: labID, Workspace: owner.Workspace, Pair: "x", Index: 6 + i, IPv6: true})
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, l)
		links = append(links, l)
	}
	ins := map[string]machine.Instance{}
	for _, role := range []string{"router", "server", "client"} {
		m := machine.Machine{Address: "pair.x." + role, LabID: labID, Workspace: owner.Workspace, Pair: "x", Role: role,
			Name: labID + "-x-" + role[:1], Link: links[0], Routed: role != "router"}
		switch role {
		case "router":
			m.Link2 = links[1]
		case "client":
			m.Link = links[1]
		}
		in, err := p.Create(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, in)
		ins[role] = in
	}
	srv, cli := ins["server"].Endpoint, ins["client"].Endpoint
	if srv.Addr6 == "" || cli.Addr6 == "" || srv.Addr6 != links[0].Attrs["server_addr6"] || cli.Addr6 != links[1].Attrs["client_addr6"] {
		t.Fatalf("IPv6 endpoints server %+v client %+v, links %v %v", srv, cli, links[0].Attrs, links[1].Attrs)
	}
	for role, in := range ins {
		out, err := exec.Command("ip", "-n", in.ID, "-6", "addr", "show", "dev", "eth0").CombinedOutput()
		global := ""
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Contains(line, "scope global") {
				global = line
			}
		}
		if err != nil || !strings.Contains(global, in.Endpoint.Addr6+"/64") || strings.Contains(global, "tentative") {
			t.Errorf("%s: eth0's IPv6 addresses (%v):\n%s", role, err, out)
		}
	}
	fwd, err := exec.Command("ip", "netns", "exec", ins["router"].ID, "sysctl", "-n", "net.ipv6.conf.all.forwarding").CombinedOutput()
	if err != nil || strings.TrimSpace(string(fwd)) != "1" {
		t.Errorf("router's IPv6 forwarding %q (%v)", fwd, err)
	}
	reach(t, ins["server"].ID, ins["client"].ID, srv.Addr6)
	if now, _ := os.ReadFile("/proc/sys/net/ipv6/conf/all/forwarding"); string(now) != string(hostFwd) {
		t.Errorf("host's IPv6 forwarding changed: %q -> %q", hostFwd, now)
	}
}
