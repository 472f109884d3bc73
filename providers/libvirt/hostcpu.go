package libvirt

import (
	"context"
	"fmt"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/machine"
)

// CPUSource names the counter in results.
const CPUSource = "libvirt:cpu_time"

// MeterCPU measures a domain's CPU time (virDomainGetInfo's cpuTime: every
// thread of its QEMU process, so emulation and I/O threads count too) over
// the benchmark, as a share of its vCPUs: 100 is every vCPU fully busy; it
// can pass 100 when QEMU's own threads are busy beside the vCPUs.
func (p *Provider) MeterCPU(ctx context.Context, in machine.Instance) (_ func(context.Context) (machine.HostCPU, error), err error) {
	defer p.explain(&err)
	l, err := p.conn()
	if err != nil {
		return nil, err
	}
	dom, err := l.DomainLookupByName(in.Name)
	if err != nil {
		return nil, callErr("DomainLookupByName", in.Name, err)
	}
	_, _, _, vcpus, cpu0, err := l.DomainGetInfo(dom)
	if err != nil {
		return nil, callErr("DomainGetInfo", in.Name, err)
	}
	t0 := time.Now()
	return func(ctx context.Context) (_ machine.HostCPU, err error) {
		defer p.explain(&err)
		state, _, _, _, cpu1, err := l.DomainGetInfo(dom)
		if err != nil {
			return machine.HostCPU{}, callErr("DomainGetInfo", in.Name, err)
		}
		switch golibvirt.DomainState(state) {
		case golibvirt.DomainRunning, golibvirt.DomainBlocked:
		default:
			// QEMU is gone and its CPU time with it (libvirt reports 0).
			return machine.HostCPU{}, fmt.Errorf("domain %s %s during the measurement: no CPU time to report", in.Name, stateName(int32(state)))
		}
		return busy(cpu0, cpu1, time.Since(t0), int(vcpus))
	}, nil
}

func busy(cpu0, cpu1 uint64, wall time.Duration, vcpus int) (machine.HostCPU, error) {
	if vcpus <= 0 || wall <= 0 {
		return machine.HostCPU{}, fmt.Errorf("no interval to measure (vcpus %d, %v)", vcpus, wall)
	}
	if cpu1 < cpu0 {
		return machine.HostCPU{}, fmt.Errorf("cpu time went backwards (%d → %d ns): the domain restarted", cpu0, cpu1)
	}
	pct := float64(cpu1-cpu0) / float64(wall.Nanoseconds()) / float64(vcpus) * 100
	return machine.HostCPU{BusyPct: pct, Source: CPUSource}, nil
}
