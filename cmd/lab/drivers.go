package main

import (
	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// osDriver maps a template's os to its driver: the guest OS packages
// imported in main.go register themselves (guest.Register).
func osDriver(name string) (guest.OS, error) { return guest.NewOS(name) }

// benchRunner maps a benchmark block to its runner: each tool registers
// itself with package bench (bench/tools imports them all).
func benchRunner(tool string) (bench.Runner, error) { return bench.NewRunner(tool) }
