package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
)

// kvmRouted applies examples/kvm-routed-firewall without its firewall
// (the test image has no nft) with one short run: three domains, the
// router on both lab networks with .2 of each, forwarding on, each end
// routing the peer's /24 via it — read back inside the guests — and
// iperf3 from the client's address to the server's, on two different
// networks, so across the router. Teardown leaves no domain, volume or
// network.
func kvmRouted(t *testing.T, e kvmEnv) {
	src, err := os.ReadFile("../../examples/kvm-routed-firewall/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.NewReplacer(`lab "kvm-routed-firewall"`, `lab "kvm-routed"`, "repeat = 3", "repeat = 1",
		`  matrix = { firewall = ["off", "stateless", "stateful"] }`, "").Replace(string(src))
	body = regexp.MustCompile(`(?s)\n  router \{.*?\n  \}\n`).ReplaceAllString(body, "\n")
	if strings.Contains(body, "router {") || strings.Contains(body, "matrix") {
		t.Fatalf("examples/kvm-routed-firewall changed: its matrix or router block was not removed:\n%s", body)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	names := kvmPlan(t, e, dir, "duration=3s")
	defer func() {
		if out, err := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
	}()
	start := time.Now()
	if out, err := e.cmd(dir, "apply", "-auto-approve", "-keep", names.File).CombinedOutput(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	t.Logf("figures: routed pair applied (three boots, one 3 s run) in %v (load average %s)", time.Since(start).Round(time.Second), loadAverage())
	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	ins := map[string]machine.Instance{}
	for _, r := range st.Resources {
		if r.Instance.Kind == "machine" {
			ins[r.Instance.Name] = r.Instance
		}
	}
	router, server, client := ins[names.Group+"-r"], ins[names.Server], ins[names.Client]
	if router.Endpoint == nil || server.Endpoint == nil || client.Endpoint == nil {
		t.Fatalf("state lacks a machine: %v", ins)
	}
	guest := func(in machine.Instance, cmd string) string {
		t.Helper()
		o, err := exec.Command("ip", "netns", "exec", e.ns, "ssh", "-i", e.key, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
			"-o", "LogLevel=ERROR", "root@"+in.Endpoint.SSHHost, cmd).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh %s %q: %v\n%s", in.Name, cmd, err, o)
		}
		return strings.TrimSpace(string(o))
	}
	rep := router.Endpoint
	for _, c := range []struct {
		in        machine.Instance
		cmd, want string
	}{
		{router, "sysctl -n net.ipv4.ip_forward", "1"},
		{router, "ip -o -4 addr show dev " + rep.Iface, rep.Addr + "/24"},
		{router, "ip -o -4 addr show dev " + rep.Iface2, router.Attrs["addr2"] + "/24"},
		{server, "ip -4 route show " + server.Attrs["route_net"], "via " + rep.Addr},
		{client, "ip -4 route show " + client.Attrs["route_net"], "via " + router.Attrs["addr2"]},
	} {
		if got := guest(c.in, c.cmd); c.want == "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %s = %q, want %q", c.in.Name, c.cmd, got, c.want)
		}
	}
	r := oneRun(t, dir)
	conns := iperf3Connections(t, r)
	for _, c := range conns {
		if c.Local != client.Endpoint.Addr || c.Remote != server.Endpoint.Addr {
			t.Errorf("iperf3 ran %s → %s, want %s → %s", c.Local, c.Remote, client.Endpoint.Addr, server.Endpoint.Addr)
		}
	}
	if len(conns) == 0 || r.Metrics.ThroughputBps <= 0 || r.Observed.Router == nil {
		t.Errorf("run: %d connections, %.0f b/s, router observed %v", len(conns), r.Metrics.ThroughputBps, r.Observed.Router)
	}
	t.Logf("figures: %.2f Gb/s client → router → server under TCG (load average %s)", r.Metrics.ThroughputBps/1e9, loadAverage())
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute figures, printed
// beside a timing.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
