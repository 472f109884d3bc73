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

// TestRealStaticAddress6 runs StaticAddress6 in a real namespace, twice
// (a replaced address, not a second one): the interface has exactly that
// global address, not tentative, and keeps its link-local one.
func TestRealStaticAddress6(t *testing.T) {
	if _, err := exec.LookPath("sysctl"); err != nil {
		t.Skip("needs sysctl")
	}
	p := netnstest.NewPair(t)
	ctx := context.Background()
	srv := netns.New("pair.t.server", p.A.NS, nil)
	for _, addr := range []string{"fd00:1ab:6::9/64", "fd00:1ab:6::1/64"} {
		for _, c := range linux.StaticAddress6(p.A.Iface, addr) {
			if _, err := srv.Run(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := srv.Run(ctx, guest.Cmd{Argv: []string{"ip", "-6", "-o", "addr", "show", "dev", p.A.Iface}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Stdout)
	if strings.Count(out, "scope global") != 1 || !strings.Contains(out, "fd00:1ab:6::1/64 scope global nodad") ||
		strings.Contains(out, "fd00:1ab:6::9") || !strings.Contains(out, "scope link") {
		t.Errorf("addresses after StaticAddress6:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "scope global") && strings.Contains(line, "tentative") {
			t.Errorf("global address still tentative: %s", line)
		}
	}
}
