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

// TestRealNamespace applies and observes settings on a real veth pair.
func TestRealNamespace(t *testing.T) {
	for _, tool := range []string{"ethtool", "iptables", "sysctl", "tc", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	p := netnstest.NewPair(t)
	ctx := context.Background()
	drv := linux.New()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	cli := netns.New("pair.t.client", p.B.NS, nil)

	s := guest.Settings{
		MTU:               9000,
		Offloads:          map[string]bool{"gro": true, "tso": false},
		CongestionControl: "cubic",
		Sysctl:            map[string]string{"net.ipv4.tcp_rmem": "4096 131072 6291456"},
		Loss:              &guest.Loss{Percent: 1, Method: "nth"},
	}
	if err := drv.Apply(ctx, cli, p.B.Iface, guest.Settings{MTU: 9000}); err != nil {
		t.Fatal(err)
	}
	// Twice: a repeated cell must not stack rules or INPUT jumps.
	for range 2 {
		if err := drv.Apply(ctx, srv, p.A.Iface, s); err != nil {
			t.Fatal(err)
		}
	}
	o, err := drv.Observe(ctx, srv, p.A.Iface, s)
	if err != nil {
		t.Fatal(err)
	}
	if msgs := guest.Verify(s, o); len(msgs) != 0 {
		t.Errorf("Verify: %q\nobserved %+v", msgs, o)
	}
	// A non-initial namespace may only select allowed algorithms.
	allowed, _ := exec.Command("cat", "/proc/sys/net/ipv4/tcp_allowed_congestion_control").Output()
	if wantScope := "socket"; !strings.Contains(string(allowed), "cubic") && o.CCScope != wantScope {
		t.Errorf("cubic is not allowed in namespaces here: scope %q, want %q", o.CCScope, wantScope)
	}
	if o.Driver != "veth" || o.Kernel == "" {
		t.Errorf("provenance: driver %q kernel %q", o.Driver, o.Kernel)
	}
	if n := strings.Count(o.Loss, "-A LAB-LOSS"); n != 1 {
		t.Errorf("loss rules after two applies: %q", o.Loss)
	}
	res, _ := srv.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-S", "INPUT"}})
	if n := strings.Count(string(res.Stdout), "-j LAB-LOSS"); n != 1 {
		t.Errorf("INPUT jumps to LAB-LOSS %d times:\n%s", n, res.Stdout)
	}

	// The rule really drops every 100th packet arriving at the server.
	send200(t, cli, p.A.Addr)
	res, err = srv.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-L", "LAB-LOSS", "-v", "-x", "-n"}})
	if f := strings.Fields(lastLine(string(res.Stdout))); err != nil || len(f) < 2 || f[0] != "2" || f[2] != "DROP" {
		t.Errorf("after 200 datagrams, want 2 dropped:\n%s %v", res.Stdout, err)
	}

	// A later cell: LRO cannot be turned on on veth, and it has no loss.
	s2 := guest.Settings{Offloads: map[string]bool{"lro": true}}
	if err := drv.Apply(ctx, srv, p.A.Iface, s2); err != nil {
		t.Fatal(err)
	}
	o, err = drv.Observe(ctx, srv, p.A.Iface, s2)
	if err != nil {
		t.Fatal(err)
	}
	msgs := guest.Verify(s2, o)
	if len(msgs) != 1 || msgs[0] != `lro: asked on, guest reports "off [fixed]"` {
		t.Errorf("Verify with lro on: %q", msgs)
	}
	if o.Loss != "" {
		t.Errorf("loss rule survived a cell without loss: %q", o.Loss)
	}
	res, _ = srv.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-S", linux.LossChain}})
	if strings.Contains(string(res.Stdout), "-A") {
		t.Errorf("rules left in %s:\n%s", linux.LossChain, res.Stdout)
	}
}

// TestRealRandomThenNone switches loss methods and removes loss again.
func TestRealRandomThenNone(t *testing.T) {
	p := netnstest.NewPair(t)
	ctx := context.Background()
	srv := netns.New("s", p.A.NS, nil)
	for _, s := range []guest.Settings{
		{Loss: &guest.Loss{Percent: 2, Method: "random"}},
		{Loss: &guest.Loss{Percent: 5, Method: "nth"}},
		{Loss: &guest.Loss{Percent: 0, Method: "nth"}},
	} {
		if err := linux.New().Apply(ctx, srv, p.A.Iface, s); err != nil {
			t.Fatal(err)
		}
		o, err := linux.New().Observe(ctx, srv, p.A.Iface, s)
		if err != nil {
			t.Fatal(err)
		}
		if msgs := guest.Verify(s, o); len(msgs) != 0 {
			t.Errorf("%+v: %q", s.Loss, msgs)
		}
		if want := s.Loss.Percent > 0; want != (o.Loss != "") || strings.Count(o.Loss, "-A") > 1 {
			t.Errorf("%+v: loss rules %q", s.Loss, o.Loss)
		}
	}
}

// send200 sends 200 UDP datagrams from t to addr port 9 (discard).
func send200(t *testing.T, tr guest.Transport, addr string) {
	t.Helper()
	script := `for i in $(seq 200); do echo x > /dev/udp/` + addr + `/9; done`
	if _, err := tr.Run(context.Background(), guest.Cmd{Argv: []string{"bash", "-c", script}}); err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestRealRings asks a real veth in a namespace for ring sizes. veth has
// no ring parameters on the kernels seen here (`ethtool -g` fails with
// "netlink error: Operation not supported"): Apply and Observe must then
// refuse, naming the guest, the interface and the command, and change
// nothing. Should this kernel's veth offer rings, the sizes are applied
// and read back instead.
func TestRealRings(t *testing.T) {
	if _, err := exec.LookPath("ethtool"); err != nil {
		t.Skip("needs ethtool")
	}
	p := netnstest.NewPair(t)
	ctx := context.Background()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	drv := linux.New()

	res, probe := srv.Run(ctx, guest.Cmd{Argv: []string{"ethtool", "-g", p.A.Iface}})
	if probe == nil {
		cur, err := linux.ParseRings(string(res.Stdout))
		if err != nil || cur.RXMax == 0 {
			t.Fatalf("veth offers rings here but they do not parse: %+v %v\n%s", cur, err, res.Stdout)
		}
		s := guest.Settings{RxRing: cur.RXMax, Strict: true}
		if err := drv.Apply(ctx, srv, p.A.Iface, s); err != nil {
			t.Fatal(err)
		}
		o, err := drv.Observe(ctx, srv, p.A.Iface, s)
		if err != nil || o.Rings == nil || o.Rings.RX != cur.RXMax {
			t.Fatalf("observed %+v, %v; want rx %d", o.Rings, err, cur.RXMax)
		}
		return
	}
	t.Logf("veth on this kernel: %v", probe)
	s := guest.Settings{MTU: 1400, RxRing: 512, TxRing: 512}
	err := drv.Apply(ctx, srv, p.A.Iface, s)
	for _, want := range []string{"pair.t.server", "interface " + p.A.Iface, "ethtool -g " + p.A.Iface, "Operation not supported", "rx_ring/tx_ring"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Apply error %v does not say %q", err, want)
		}
	}
	_, err = drv.Observe(ctx, srv, p.A.Iface, guest.Settings{TxRing: 512})
	if err == nil || !strings.Contains(err.Error(), "ethtool -g "+p.A.Iface) {
		t.Errorf("Observe error %v does not name the command", err)
	}
	// The refusal came before any change: the MTU asked with it is not set.
	if o, err := drv.Observe(ctx, srv, p.A.Iface, guest.Settings{}); err != nil || o.MTU == 1400 {
		t.Errorf("MTU after a refused apply: %d, %v", o.MTU, err)
	}
	// Without ring sizes asked, nothing about rings is read or refused.
	if _, err := drv.Observe(ctx, srv, p.A.Iface, guest.Settings{}); err != nil {
		t.Errorf("Observe without rings: %v", err)
	}
}

// TestRealLossPort: with loss_port the nth rule counts and drops only TCP
// packets to that port, as seed 003's `iptables -A INPUT -p tcp --dport
// 5001 -m statistic --mode nth --every 100 --packet 0 -j DROP` did: other
// traffic on the same NIC (lab's own SSH session on a one-NIC guest) never
// advances the counter.
func TestRealLossPort(t *testing.T) {
	p := netnstest.NewPair(t)
	ctx := context.Background()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	cli := netns.New("pair.t.client", p.B.NS, nil)
	s := guest.Settings{Loss: &guest.Loss{Percent: 50, Method: "nth", Port: 5001}}
	if err := linux.New().Apply(ctx, srv, p.A.Iface, s); err != nil {
		t.Fatal(err)
	}
	o, err := linux.New().Observe(ctx, srv, p.A.Iface, s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(o.Loss, "-p tcp -m tcp --dport 5001 -m statistic --mode nth --every 2") {
		t.Errorf("observed loss rule %q: want the port match before the nth match", o.Loss)
	}
	counted := func() string {
		res, err := srv.Run(ctx, guest.Cmd{Argv: []string{"iptables", "-w", "-L", "LAB-LOSS", "-v", "-x", "-n"}})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(lastLine(string(res.Stdout)))[0]
	}
	send200(t, cli, p.A.Addr) // UDP to port 9: not the benchmark's packets
	if n := counted(); n != "0" {
		t.Errorf("after 200 UDP datagrams the port-5001 rule dropped %s packets, want 0", n)
	}
	// Four connection attempts to port 5001 (nothing listens: each SYN
	// arrives, half of them are dropped, the rest answered with a RST).
	script := `for i in 1 2 3 4; do timeout 1 bash -c 'exec 3<>/dev/tcp/` + p.A.Addr + `/5001' 2>/dev/null; done; true`
	if _, err := cli.Run(ctx, guest.Cmd{Argv: []string{"bash", "-c", script}}); err != nil {
		t.Fatal(err)
	}
	if n := counted(); n == "0" {
		t.Errorf("no SYN to port 5001 was dropped")
	}
	if err := linux.New().Apply(ctx, srv, p.A.Iface, guest.Settings{}); err != nil {
		t.Fatal(err)
	}
}
