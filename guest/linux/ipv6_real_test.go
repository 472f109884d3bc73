package linux_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/linux"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/guest/netns/netnstest"
)

// TestRealLossIPv6: over IPv6 the nth rule is ip6tables' and really drops
// every 100th IPv6 packet; IPv4 packets are not counted; a later cell
// without loss empties the chain.
func TestRealLossIPv6(t *testing.T) {
	for _, tool := range []string{"ip6tables", "iptables", "tc", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	p := netnstest.NewPair(t)
	p.AddIPv6(t)
	ctx := context.Background()
	drv := linux.New()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	cli := netns.New("pair.t.client", p.B.NS, nil)
	s := guest.Settings{IPv6: true, Loss: &guest.Loss{Percent: 1, Method: "nth"}}
	if err := drv.Apply(ctx, srv, p.A.Iface, s); err != nil {
		t.Fatal(err)
	}
	o, err := drv.Observe(ctx, srv, p.A.Iface, s)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := guest.Verify(s, o); len(msgs) != 0 || strings.Count(o.Loss, "-A LAB-LOSS") != 1 {
		t.Errorf("Verify: %q, loss %q", msgs, o.Loss)
	}
	send200(t, cli, p.A.Addr6)
	send200(t, cli, p.A.Addr) // IPv4: not the rule's
	res, err := srv.Run(ctx, guest.Cmd{Argv: []string{"ip6tables", "-w", "-L", "LAB-LOSS", "-v", "-x", "-n"}})
	// Neighbour discovery's ICMPv6 packets arrive on the interface too
	// and advance the nth counter (ARP does not, for IPv4): 1 or 2 of
	// the 200 datagrams and the few NDP packets are dropped.
	if f := strings.Fields(lastLine(string(res.Stdout))); err != nil || len(f) < 3 || (f[0] != "1" && f[0] != "2") || f[2] != "DROP" {
		t.Errorf("after 200 IPv6 datagrams, want 1 or 2 dropped:\n%s %v", res.Stdout, err)
	}
	res, _ = srv.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-S", linux.LossChain}})
	if strings.Contains(string(res.Stdout), "-A") {
		t.Errorf("an IPv4 rule for an IPv6 benchmark:\n%s", res.Stdout)
	}

	none := guest.Settings{IPv6: true}
	if err := drv.Apply(ctx, srv, p.A.Iface, none); err != nil {
		t.Fatal(err)
	}
	if o, err := drv.Observe(ctx, srv, p.A.Iface, none); err != nil || o.Loss != "" {
		t.Errorf("loss rule survived a cell without loss: %q (%v)", o.Loss, err)
	}
}
