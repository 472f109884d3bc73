package vsphere

import (
	"context"
	"fmt"
	"time"

	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

var (
	_ providers.HostCPUMeter         = (*Provider)(nil)
	_ providers.HostSettingsReporter = (*Provider)(nil)
)

// HostSettings is the vmxnet3 LRO settings of the host the VM was powered
// on on ("host-21: Net.Vmxnet3HwLRO=1 Net.Vmxnet3SwLRO=1"), read at create,
// and the VM's reservations and latency sensitivity when set
// ("; reserve_memory=true latency_sensitivity=high"); the engine puts it
// in every result's provenance.
func (p *Provider) HostSettings(in machine.Instance) string {
	if r := in.Attrs["reservations"]; r != "" {
		return in.Attrs["host_lro"] + "; " + r
	}
	return in.Attrs["host_lro"]
}

// realtimeInterval is vSphere's realtime statistics interval (seconds).
const realtimeInterval = 20

// Counters read for hypervisor-side CPU.
const (
	counterUsage    = "cpu.usage.average"    // hundredths of a percent of the VM's vCPUs
	counterUsageMHz = "cpu.usagemhz.average" // MHz
)

// MeterCPU measures a VM's CPU use from the hypervisor's side with the
// PerformanceManager's realtime (20 s) samples: the samples whose interval
// ends inside the run are averaged; a run shorter than one interval gets
// the latest sample available when it ends (the Source says which).
func (p *Provider) MeterCPU(ctx context.Context, in machine.Instance) (func(context.Context) (machine.HostCPU, error), error) {
	c, _, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	if in.ID == "" {
		return nil, fmt.Errorf("%s: no VM recorded", in.Address)
	}
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID}
	start, err := methods.GetCurrentTime(ctx, c.Client)
	if err != nil {
		return nil, fmt.Errorf("%s: vCenter time: %w", in.Address, err)
	}
	return func(ctx context.Context) (machine.HostCPU, error) {
		end, err := methods.GetCurrentTime(ctx, c.Client)
		if err != nil {
			return machine.HostCPU{}, fmt.Errorf("%s: vCenter time: %w", in.Address, err)
		}
		m := performance.NewManager(c.Client)
		n := int32(end.Sub(*start)/(realtimeInterval*time.Second)) + 2
		spec := types.PerfQuerySpec{IntervalId: realtimeInterval, StartTime: start, EndTime: end, MaxSample: n,
			MetricId: []types.PerfMetricId{{Instance: ""}}}
		usage, mhz, samples, err := sample(ctx, m, spec, ref, *start, *end)
		if err != nil {
			return machine.HostCPU{}, fmt.Errorf("%s: %w", in.Address, err)
		}
		src := fmt.Sprintf("vsphere:%s (%d×%ds realtime samples)", counterUsage, samples, realtimeInterval)
		if samples == 0 {
			// Shorter than one interval: take the latest sample there is.
			spec = types.PerfQuerySpec{IntervalId: realtimeInterval, MaxSample: 1, MetricId: []types.PerfMetricId{{Instance: ""}}}
			usage, mhz, samples, err = sample(ctx, m, spec, ref, time.Time{}, time.Time{})
			if err != nil {
				return machine.HostCPU{}, fmt.Errorf("%s: %w", in.Address, err)
			}
			if samples == 0 {
				return machine.HostCPU{}, fmt.Errorf("%s: vCenter has no realtime CPU samples yet", in.Address)
			}
			src = fmt.Sprintf("vsphere:%s (latest %ds realtime sample; run shorter than the interval)", counterUsage, realtimeInterval)
		}
		return machine.HostCPU{BusyPct: usage / 100, MHz: mhz, Source: src}, nil
	}, nil
}

// sample averages the usage counters over the samples whose timestamp is
// within (from, to+interval]; a zero from takes every sample returned.
func sample(ctx context.Context, m *performance.Manager, spec types.PerfQuerySpec, ref types.ManagedObjectReference, from, to time.Time) (usage, mhz float64, n int, err error) {
	raw, err := m.SampleByName(ctx, spec, []string{counterUsage, counterUsageMHz}, []types.ManagedObjectReference{ref})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("query %s: %w", counterUsage, err)
	}
	series, err := m.ToMetricSeries(ctx, raw)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("query %s: %w", counterUsage, err)
	}
	var sumU, sumM float64
	var nU, nM int
	for _, em := range series {
		keep := make([]bool, len(em.SampleInfo))
		for i, si := range em.SampleInfo {
			keep[i] = from.IsZero() || si.Timestamp.After(from) && !si.Timestamp.After(to.Add(realtimeInterval*time.Second))
		}
		for _, s := range em.Value {
			if s.Instance != "" {
				continue
			}
			for i, v := range s.Value {
				if i >= len(keep) || !keep[i] || v < 0 {
					continue
				}
				switch s.Name {
				case counterUsage:
					sumU += float64(v)
					nU++
				case counterUsageMHz:
					sumM += float64(v)
					nM++
				}
			}
		}
	}
	if nU == 0 {
		return 0, 0, 0, nil
	}
	usage = sumU / float64(nU)
	if nM > 0 {
		mhz = sumM / float64(nM)
	}
	return usage, mhz, nU, nil
}
