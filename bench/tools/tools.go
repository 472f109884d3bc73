// Package tools registers every benchmark tool lab knows: importing it
// (the spec loader does) runs each tool package's init, which calls
// bench.Register. A new tool is one package under bench/ and one import
// line here; docs/TOOLS.md walks through it.
package tools

import (
	// Each import registers one tool.
	_ "github.com/lab-bench/lab/bench/iperf2"
	_ "github.com/lab-bench/lab/bench/iperf3"
	_ "github.com/lab-bench/lab/bench/netperf"
	_ "github.com/lab-bench/lab/bench/sockperf"
)
