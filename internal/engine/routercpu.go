package engine

import (
	"context"

	"github.com/lab-bench/lab/bench"
)

// meterRouter samples the router's CPU times (bench.ReadCPU) and returns
// a function that samples them again and gives the router's system-wide
// CPU use in between, over its pinned CPUs (all of them when it has none:
// on the local back end that is the whole host, as namespaces share it).
// It returns nil for a pair without a router, or when a sample cannot be
// read: a router whose CPU cannot be read does not fail the run.
func meterRouter(ctx context.Context, router *end) func(context.Context) *bench.CPUUsage {
	if router == nil {
		return func(context.Context) *bench.CPUUsage { return nil }
	}
	before, err := bench.ReadCPU(ctx, router.t)
	return func(ctx context.Context) *bench.CPUUsage {
		if err != nil {
			return nil
		}
		after, err := bench.ReadCPU(ctx, router.t)
		if err != nil {
			return nil
		}
		cpus := router.ep().CPUs
		u := bench.Usage(before, after, cpus)
		u.NumCPUs = len(cpus)
		if u.NumCPUs == 0 {
			u.NumCPUs = len(after)
		}
		u.MHz, _ = bench.ReadCPUMHz(ctx, router.t)
		return &u
	}
}
