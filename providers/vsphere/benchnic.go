package vsphere

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// addressBenchNIC (own-switch mode) gives the benchmark NIC its address:
// nothing answers DHCP on a switch without an uplink, so lab logs in over
// the management NIC (the address VMware Tools reported), finds the
// guest's interface with the MAC vSphere gave the benchmark NIC — not a
// guessed name — and sets the pair's static address on it (the own-link
// plan, providers.OwnLinkSetup).
// mac is that NIC's MAC (benchNICMAC); mac2 a router's NIC on the
// client's port group, which routedNIC addresses, as it routes a routed
// pair's ends.
// The endpoint's Addr and Iface become the benchmark NIC's; SSH stays on
// the management address.
func (p *Provider) addressBenchNIC(ctx context.Context, mac, mac2 string, m machine.Machine, in *machine.Instance) error {
	in.Attrs["bench_mac"], in.Attrs["mgmt_addr"] = mac, in.Endpoint.SSHHost
	t, err := providers.ConnectGuest(ctx, *in, p.dial, SSHRetry)
	if err != nil {
		return fmt.Errorf("ssh to the management address %s: %w", in.Endpoint.SSHHost, err)
	}
	defer t.Close()
	if k, ok := t.(interface{ HostKey() string }); ok && in.Endpoint.SSH.HostKey == "" {
		in.Endpoint.SSH.HostKey = k.HostKey() // pinned at first contact
	}
	nics := guest.For(m.Template.OS).NICs
	res, err := t.Run(ctx, nics.List)
	if err != nil {
		return fmt.Errorf("%s: find the benchmark NIC: %w", m.Address, err)
	}
	cmds, err := providers.OwnLinkSetup(m, in, string(res.Stdout), mac, mac2)
	if err != nil {
		return fmt.Errorf("%s: %w", m.Address, err)
	}
	for _, c := range cmds {
		if _, err := t.Run(ctx, c); err != nil {
			return fmt.Errorf("%s: %s: %w", m.Address, c, err)
		}
	}
	in.Attrs["bench_addr"] = in.Endpoint.Addr
	if mac2 != "" {
		in.Attrs["bench_mac2"] = mac2
	}
	return nil
}

// benchNICMAC is the MAC of the VM's NIC on port group pg (the benchmark
// NIC in own-switch mode).
func benchNICMAC(ctx context.Context, vm *object.VirtualMachine, pg string) (string, error) {
	var o mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"config.hardware.device"}, &o); err != nil {
		return "", fmt.Errorf("read devices: %w", err)
	}
	if o.Config == nil {
		return "", fmt.Errorf("vCenter reports no configuration")
	}
	mac := benchMAC(o.Config.Hardware.Device, pg)
	if mac == "" {
		return "", fmt.Errorf("no NIC on port group %s", pg)
	}
	return mac, nil
}
