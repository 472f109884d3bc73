package vsphere

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// macGuest is a FreeBSD guest behind SSH that knows every benchmark NIC
// the simulator powered on: `ifconfig -a` lists one interface per MAC in
// ifconfig(8)'s layout (a header line at column 0, then "\tether MAC", as
// freebsd.IfaceByMAC documents), so addressBenchNIC finds its NIC; every
// other command succeeds with no output.
type macGuest struct {
	name string
	macs *macList
}

type macList struct {
	mu  sync.Mutex
	out strings.Builder
	n   int
}

func (l *macList) add(mac string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.out, "vmx%d: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n\tether %s\n", l.n, mac)
	l.n++
}

func (g macGuest) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	if strings.Join(c.Argv, " ") != "ifconfig -a" {
		return guest.Result{}, nil
	}
	g.macs.mu.Lock()
	defer g.macs.mu.Unlock()
	return guest.Result{Stdout: []byte(g.macs.out.String())}, nil
}
func (g macGuest) Upload(context.Context, string, io.Reader) error { return nil }
func (g macGuest) Name() string                                    { return g.name }
func (g macGuest) Close() error                                    { return nil }

// loadAvg is /proc/loadavg's first three fields (the 1, 5 and 15 minute
// load averages), or "unknown".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// provisionPairs makes the links and machines of p's groups as
// engine.provision does (a group's link, then its two machines side by
// side), every group at once, and returns the wall time; then deletes
// everything (machines, then links) and returns that wall time too.
func provisionPairs(b testing.TB, prov *Provider, p *plan.Plan) (up, down time.Duration) {
	ctx := context.Background()
	start := time.Now()
	links := make([]machine.Instance, len(p.Groups))
	vms := make([][2]machine.Instance, len(p.Groups))
	var eg errgroup.Group
	for i, g := range p.Groups {
		eg.Go(func() error {
			var err error
			if links[i], err = prov.Link(ctx, g.Link); err != nil {
				return err
			}
			var mg errgroup.Group
			for k, m := range []machine.Machine{g.Server, g.Client} {
				m.Link = links[i]
				mg.Go(func() (err error) { vms[i][k], err = prov.Create(ctx, m); return err })
			}
			return mg.Wait()
		})
	}
	if err := eg.Wait(); err != nil {
		b.Fatal(err)
	}
	up = time.Since(start)
	start = time.Now()
	for i := range p.Groups {
		eg.Go(func() error {
			var mg errgroup.Group
			for _, in := range vms[i] {
				mg.Go(func() error { return prov.Delete(ctx, in) })
			}
			if err := mg.Wait(); err != nil {
				return err
			}
			return prov.Delete(ctx, links[i])
		})
	}
	if err := eg.Wait(); err != nil {
		b.Fatal(err)
	}
	return up, time.Since(start)
}

// BenchmarkOwnSwitchProvisioning is issue 26's figure: the wall time of
// provisioning 1, 10 and 50 pairs in own-switch mode (the default with a
// pinned host: per pair a vSwitch and port group, two clones with a
// management and a benchmark NIC, power-on, the benchmark NIC found by its
// MAC and addressed over SSH) with every pair started at once, so what
// grows with the pairs is what the provider serialises, not the engine's
// Parallelism bound. Every vCenter call takes 100 ms, a clone 2 s more and
// a power-on 3 s more (the simulator settings). It prints each
// wall time, the ratios to 1 pair (targets: ≤ 1.3 for 10, ≤ 2 for 50) and
// the load average, which on a shared 2-core machine moves the figures.
func BenchmarkOwnSwitchProvisioning(b *testing.B) {
	sim := vspheretest.Start(b)
	macs := &macList{}
	sim.OnPowerOn(func(on vspheretest.PoweredOn) {
		for pg, mac := range on.MACs {
			if strings.HasPrefix(pg, "lab-pg-") {
				macs.add(mac)
			}
		}
	})
	d := &sim.Model.DelayConfig
	d.Delay, d.MethodDelay = 100, map[string]int{"CloneVM_Task": 2000, "PowerOnVM_Task": 3000}
	defer func() { d.Delay, d.MethodDelay = 0, nil }()
	for i := 0; i < b.N; i++ {
		var walls []time.Duration
		var report []string
		for _, n := range []int{1, 10, 50} {
			src := strings.Replace(pairsLab(fmt.Sprintf("os%dx%d", n, i), n), `cluster      = "DC0_C0"`,
				fmt.Sprintf("cluster      = \"DC0_C0\"\n  host         = %q", pinned), 1)
			src = strings.ReplaceAll(src, "vcpu = 1\n", "vcpu = 1\n  link { mtu = 9000 }\n")
			lab, p := loadLab(b, src)
			_, prov, _ := newEngine(b, sim, lab)
			prov.dial = func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
				return macGuest{name: name, macs: macs}, nil
			}
			load := loadAvg()
			up, down := provisionPairs(b, prov, p)
			walls = append(walls, up)
			b.ReportMetric(up.Seconds(), fmt.Sprintf("s/%d-pairs", n))
			report = append(report, fmt.Sprintf("%d pairs %v (teardown %v, load %s)", n, up.Round(time.Millisecond), down.Round(time.Millisecond), load))
		}
		r10, r50 := walls[1].Seconds()/walls[0].Seconds(), walls[2].Seconds()/walls[0].Seconds()
		b.ReportMetric(r10, "wall10/wall1")
		b.ReportMetric(r50, "wall50/wall1")
		fmt.Printf("own-switch provisioning, 100 ms per call (clone +2 s, power-on +3 s), all pairs at once: %s; 10/1 = %.2f (target <= 1.3), 50/1 = %.2f (target <= 2); load average now %s\n",
			strings.Join(report, "; "), r10, r50, loadAvg())
	}
}
