// Package netnstest makes throw-away network namespace pairs for tests:
// two namespaces named labt-<random>-a/-b joined by a veth pair, addressed
// from 198.18.0.0/15 (RFC 2544's benchmarking range). Everything is removed,
// processes included, when the test ends, also when it fails.
package netnstest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// End is one side of a test pair.
type End struct {
	NS    string // namespace name, "labt-1a2b3c-a"
	Iface string // veth name inside the namespace
	Addr  string // IPv4 address without prefix length
	// Addr6 is the IPv6 address (without prefix length) AddIPv6 gave the
	// end; empty before.
	Addr6 string
}

// Pair is two namespaces joined by a veth pair.
type Pair struct {
	A, B End
}

// RequireRoot skips the test unless it runs as root with a working
// `ip netns`.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs ip (iproute2)")
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		t.Skipf("ip netns unavailable: %v: %s", err, out)
	}
}

// NewPair creates a veth pair between two fresh namespaces, both ends up,
// loopback up, A = 198.18.0.1/24 and B = 198.18.0.2/24. It skips the test
// when not root.
func NewPair(t testing.TB) Pair {
	t.Helper()
	RequireRoot(t)
	id := randomID(t)
	p := Pair{
		A: End{NS: "labt-" + id + "-a", Iface: "lt" + id + "a", Addr: "198.18.0.1"},
		B: End{NS: "labt-" + id + "-b", Iface: "lt" + id + "b", Addr: "198.18.0.2"},
	}
	for _, e := range []End{p.A, p.B} {
		run(t, "ip", "netns", "add", e.NS)
		ns := e.NS
		t.Cleanup(func() { Remove(t, ns) })
	}
	run(t, "ip", "link", "add", p.A.Iface, "type", "veth", "peer", "name", p.B.Iface)
	for _, e := range []End{p.A, p.B} {
		run(t, "ip", "link", "set", e.Iface, "netns", e.NS)
		run(t, "ip", "-n", e.NS, "addr", "add", e.Addr+"/24", "dev", e.Iface)
		run(t, "ip", "-n", e.NS, "link", "set", e.Iface, "up")
		run(t, "ip", "-n", e.NS, "link", "set", "lo", "up")
	}
	return p
}

// Remove kills every process in namespace ns and deletes it (and with it
// the veth ends inside). Errors are logged, not fatal.
func Remove(t testing.TB, ns string) {
	t.Helper()
	out, _ := exec.Command("ip", "netns", "pids", ns).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
		t.Logf("ip netns del %s: %v: %s", ns, err, out)
	}
}

func run(t testing.TB, argv ...string) {
	t.Helper()
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
}

func randomID(t testing.TB) string {
	b := make([]byte, 3)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// LinkA joins the host to namespace A with a second veth on the /30 whose
// host side is hostAddr and A's side aAddr (B stays reachable only through
// A: a jump host's network). It is removed when the test ends.
func (p Pair) LinkA(t testing.TB, hostAddr, aAddr string) {
	t.Helper()
	id := strings.TrimSuffix(strings.TrimPrefix(p.A.NS, "labt-"), "-a")
	hostIf, aIf := "lt"+id+"r", "lt"+id+"j"
	run(t, "ip", "link", "add", hostIf, "type", "veth", "peer", "name", aIf)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hostIf).Run() })
	run(t, "ip", "link", "set", aIf, "netns", p.A.NS)
	run(t, "ip", "addr", "add", hostAddr+"/30", "dev", hostIf)
	run(t, "ip", "link", "set", hostIf, "up")
	run(t, "ip", "-n", p.A.NS, "addr", "add", aAddr+"/30", "dev", aIf)
	run(t, "ip", "-n", p.A.NS, "link", "set", aIf, "up")
}

// AddIPv6 gives A fd00:1ab::1/64 and B fd00:1ab::2/64 (unique local
// addresses, RFC 4193; only inside the pair's own namespaces) without
// duplicate address detection (nodad), so that they are usable at once,
// and sets the ends' Addr6.
func (p *Pair) AddIPv6(t testing.TB) {
	t.Helper()
	p.A.Addr6, p.B.Addr6 = "fd00:1ab::1", "fd00:1ab::2"
	for _, e := range []End{p.A, p.B} {
		run(t, "ip", "netns", "exec", e.NS, "sysctl", "-qw", "net.ipv6.conf."+e.Iface+".disable_ipv6=0")
		run(t, "ip", "-n", e.NS, "-6", "addr", "add", e.Addr6+"/64", "dev", e.Iface, "nodad")
	}
}
