package engine

import (
	"context"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/providers"
)

// meterPair starts hypervisor-side CPU measurement of both ends when the
// provider can do it. The returned function ends it; it returns nil when
// the provider cannot measure or a measurement failed (the failure is
// reported as a warning, never as a failed run).
//
// A cross pair's ends are measured only when both providers can: a record
// with one end's hypervisor CPU would read as the pair's.
func (e *Engine) meterPair(ctx context.Context, serverEnd, clientEnd end) func(context.Context) *results.HostCPUPair {
	ms, okS := serverEnd.prov.(providers.HostCPUMeter)
	mc, okC := clientEnd.prov.(providers.HostCPUMeter)
	if !okS || !okC {
		return func(context.Context) *results.HostCPUPair { return nil }
	}
	server, client := serverEnd.in, clientEnd.in
	stopS, errS := ms.MeterCPU(ctx, server)
	stopC, errC := mc.MeterCPU(ctx, client)
	return func(ctx context.Context) *results.HostCPUPair {
		if ctx.Err() != nil {
			// The run was cut short (a machine stopped, an interrupt): it
			// fails with that reason, and a CPU share of a stopped machine
			// — libvirt's counter is 0 once QEMU is gone — means nothing.
			return nil
		}
		if errS != nil || errC != nil {
			for _, err := range []error{errS, errC} {
				if err != nil {
					e.emit(Event{Type: EvWarning, Message: "hypervisor CPU: " + err.Error()})
				}
			}
			return nil
		}
		var out results.HostCPUPair
		var err error
		if out.Server, err = stopS(ctx); err != nil {
			e.emit(Event{Type: EvWarning, Address: server.Address, Message: "hypervisor CPU: " + err.Error()})
			return nil
		}
		if out.Client, err = stopC(ctx); err != nil {
			e.emit(Event{Type: EvWarning, Address: client.Address, Message: "hypervisor CPU: " + err.Error()})
			return nil
		}
		return &out
	}
}
