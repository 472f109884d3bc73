package local

import (
	"fmt"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/netns"
	"github.com/lab-bench/lab/providers"
)

// Connect returns a transport that runs commands inside the machine's
// namespace with `ip netns exec`.
func (p *Provider) Connect(in providers.Instance) (guest.Transport, error) {
	ns := in.Attrs["netns"]
	if ns == "" {
		return nil, fmt.Errorf("%s: no namespace recorded", in.Address)
	}
	// Commands are not pinned here: the benchmark runner pins its own
	// processes (taskset in argv), the same way over SSH.
	return netns.New(in.Address, ns, nil), nil
}

// CPUs returns the CPUs a machine's benchmark processes are pinned to.
func CPUs(in providers.Instance) []int {
	c, _ := parseCPUList(in.Attrs["cpus"])
	return c
}
