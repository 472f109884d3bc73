// Package tools registers every benchmark tool lab knows: importing it
// (the spec loader does) runs each tool package's init, which calls
// bench.Register. A new tool is one package under bench/ and one import
// line here; docs/TOOLS.md walks through it.
//
// (No tool package registers itself yet: iperf3, iperf2 and netperf
// still register from package spec.)
package tools
