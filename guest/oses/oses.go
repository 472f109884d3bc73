// Package oses registers every guest OS lab drives: importing it (cmd/lab
// and providers/providertest do) runs each OS package's init, which calls
// guest.Register. A new OS is one package under guest/ and one import line
// here; docs/GUEST-OS.md walks through it.
package oses

import (
	// Each import registers one guest OS.
	_ "github.com/lab-bench/lab/guest/freebsd" // registers guest os "freebsd"
	_ "github.com/lab-bench/lab/guest/linux"   // registers guest os "linux"
)
