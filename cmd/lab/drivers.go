package main

import (
	"fmt"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
	"github.com/lab-bench/lab/guest/linux"
)

// osDriver maps a template's os to its driver.
func osDriver(name string) (guest.OS, error) {
	switch name {
	case "", "linux":
		return linux.New(), nil
	case "freebsd":
		return freebsd.New(), nil
	default:
		return nil, fmt.Errorf("no driver for guest os %q yet (known: linux, freebsd)", name)
	}
}

// benchRunner maps a benchmark block to its runner: each tool registers
// itself with package bench (bench/tools imports them all).
func benchRunner(tool string) (bench.Runner, error) { return bench.NewRunner(tool) }
