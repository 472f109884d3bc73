package main

import (
	"fmt"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/bench/iperf2"
	"github.com/lab-bench/lab/bench/iperf3"
	"github.com/lab-bench/lab/bench/netperf"
	"github.com/lab-bench/lab/guest"
)

// osDriver maps a template's os to its driver: the guest OS packages
// imported in main.go register themselves (guest.Register).
func osDriver(name string) (guest.OS, error) { return guest.NewOS(name) }

// benchRunner maps a benchmark block to its runner.
func benchRunner(tool string) (bench.Runner, error) {
	switch tool {
	case "", "iperf3":
		return &iperf3.Runner{}, nil
	case "iperf2":
		return &iperf2.Runner{}, nil
	case "netperf":
		return &netperf.Runner{}, nil
	default:
		return nil, fmt.Errorf("no runner for benchmark %q yet (known: iperf3, iperf2, netperf)", tool)
	}
}
