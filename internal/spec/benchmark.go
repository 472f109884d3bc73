package spec

import (
	"github.com/lab-bench/lab/bench"
	// Every benchmark tool registers its block with package bench.
	_ "github.com/lab-bench/lab/bench/tools"
)

// benchTool is the registered tool whose block type is name, or nil.
// Each tool's package owns its block's schema (bench.Tool.Block): the
// loader reads a benchmark block's body against it, as it leaves a
// provider block's body to the provider.
func benchTool(name string) *bench.Tool {
	if name == "" {
		return nil // the "" alias of bench.Lookup is for records, not block types
	}
	return bench.Lookup(name)
}
