package local

import (
	"context"
	"fmt"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Connect returns a transport that runs commands inside the machine's
// namespace with `ip netns exec`.
func (p *Provider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("connect %s: %w", in.Address, err)
	}
	ns := in.Attrs["netns"]
	if ns == "" {
		return nil, fmt.Errorf("%s: no namespace recorded", in.Address)
	}
	// Commands are not pinned here: the benchmark runner pins its own
	// processes (taskset in argv), the same way over SSH.
	return netns.New(in.Address, ns, nil), nil
}

// Close has nothing to end: the local back end holds no connection.
func (p *Provider) Close(context.Context) error { return nil }

// Capabilities are routed pairs, guest offloads, CPU pinning for vcpu, the
// veth's MTU; no NIC model, queues, host offloads or memory (a namespace
// shares the host's). A bridged block (bridge.go) makes one machine on an
// existing network: no routed pairs, no link MTU, no IPv6.
func (p *Provider) Capabilities() providers.Capabilities {
	if p.bridged() {
		return providers.Capabilities{GuestOffloads: true, VCPU: true, OnThisHost: true, ExistingNetwork: true, OneMachine: true}
	}
	return providers.Capabilities{RoutedPairs: true, GuestOffloads: true, VCPU: true, LinkMTU: true, OnThisHost: true, IPv6: true}
}

// SharesHostKernel is true: the local back end's guests are network namespaces of
// this host (providers.HostKernelSharer), so only net.* sysctls may be
// set on them.
func (p *Provider) SharesHostKernel() bool { return true }
