package local

import (
	"context"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Footprint is the machine lab runs on, for every namespace: all the local
// back end's pairs share its CPUs, so their runs never overlap.
func (p *Provider) Footprint(context.Context, machine.Instance) (providers.Footprint, error) {
	return providers.FootprintOf(providers.ThisMachine), nil
}
