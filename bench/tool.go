package bench

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Tool is one benchmark tool as lab knows it: the block a spec writes for
// it, the programs it runs on the guests, and its runner. A tool is one
// package under bench/ that registers its Tool in an init function; the
// package bench/tools imports every tool for that side effect, and the spec
// loader, the engine's preflight and the CLI find it here by name.
// docs/TOOLS.md walks through adding one.
type Tool struct {
	// Name is the benchmark block's type in a spec and Params.Tool.
	Name string
	// Block is the block's schema: attributes, defaults and checks.
	Block Block
	// Programs are what the server and client ends must have installed;
	// the engine checks them on every end before the first run.
	Programs []Program
	// NewRunner returns the tool's runner.
	NewRunner func() Runner
	// ThroughputSides are the sides of a throughput figure the tool's
	// records carry ("sender", "receiver"): a published table's side must
	// be one of them.
	ThroughputSides []string
	// Intervals, when set, reads every interval of every stream that both
	// ends' tools reported from a run's raw output (the per-interval
	// export); nil: the export has the parsed Sample.Intervals only
	// (SampleIntervals).
	Intervals func(Raw) ([]IntervalRow, error)
	// LossPortRefusal, when set, is why a loss_port rule (which matches
	// one TCP destination port) cannot be used with the tool: the spec
	// refuses loss_port with it as the diagnostic's detail.
	LossPortRefusal string
}

// Program is one program a tool runs on a guest.
type Program struct {
	// Name is the command ("netserver").
	Name string
	// Roles are the ends that run it: "server", "client" or both.
	Roles []string
	// Packages name the package that installs it, by packaging system
	// (guest.PackagingDeb: the Debian/Ubuntu package; guest.PackagingPorts:
	// the FreeBSD port's origin); each guest OS says which it uses.
	Packages map[string]string
	// Unpackaged says, by packaging system, how to get the program where
	// that system has no package for it (sockperf has no FreeBSD port:
	// "build it from …"); the missing-program error gives it as the hint.
	Unpackaged map[string]string
	// Version is the command that prints the program's version on its
	// first line ("iperf3 --version"), which a back end's template
	// identity and a run's provenance hold; nil: lab reads none.
	Version []string
}

// DefaultTool is the tool of a run whose parameters name none (plans and
// records from before the benchmark block named its tool).
const DefaultTool = "iperf3"

var (
	toolsMu sync.RWMutex
	tools   = map[string]*Tool{}
)

// Register makes a tool known under t.Name. It panics on an empty name, a
// missing runner or defaults, or a name registered twice: all are
// programming errors, found by the tool's first test.
func Register(t *Tool) {
	if t == nil || t.Name == "" || t.NewRunner == nil || t.Block.Defaults == nil {
		panic("bench: Register needs a tool with a name, a runner and block defaults")
	}
	toolsMu.Lock()
	defer toolsMu.Unlock()
	if tools[t.Name] != nil {
		panic(fmt.Sprintf("bench: tool %q registered twice", t.Name))
	}
	tools[t.Name] = t
}

// Lookup returns the tool registered under name ("" is DefaultTool), or
// nil.
func Lookup(name string) *Tool {
	if name == "" {
		name = DefaultTool
	}
	toolsMu.RLock()
	defer toolsMu.RUnlock()
	return tools[name]
}

// Names lists the registered tools, sorted.
func Names() []string {
	toolsMu.RLock()
	defer toolsMu.RUnlock()
	return slices.Sorted(maps.Keys(tools))
}

// NewRunner returns the runner of the named tool ("" is DefaultTool).
func NewRunner(name string) (Runner, error) {
	t := Lookup(name)
	if t == nil {
		return nil, fmt.Errorf("no runner for benchmark %q yet (known: %s)", name, strings.Join(Names(), ", "))
	}
	return t.NewRunner(), nil
}

// ProgramsFor lists the programs the named tool runs on role's end
// ("server" or "client"); none for an unknown tool or another role.
func ProgramsFor(name, role string) []string {
	t := Lookup(name)
	if t == nil {
		return nil
	}
	var out []string
	for _, p := range t.Programs {
		if slices.Contains(p.Roles, role) {
			out = append(out, p.Name)
		}
	}
	return out
}

// PackageFor is the package that installs program in packaging system
// (guest.Tools.Packaging), when a registered tool runs that program and
// names one.
func PackageFor(system, program string) (string, bool) {
	toolsMu.RLock()
	defer toolsMu.RUnlock()
	for _, n := range slices.Sorted(maps.Keys(tools)) {
		for _, p := range tools[n].Programs {
			if pkg, ok := p.Packages[system]; ok && p.Name == program {
				return pkg, true
			}
		}
	}
	return "", false
}

// VersionCommands are the version commands (Program.Version) of the named
// tools' programs, or of every registered tool's when none is named: the
// default tool's first, then by tool name, each program once.
func VersionCommands(names ...string) [][]string {
	toolsMu.RLock()
	defer toolsMu.RUnlock()
	names = slices.Clone(names)
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(tools))
	}
	slices.SortStableFunc(names, func(a, b string) int {
		return boolInt(b == DefaultTool) - boolInt(a == DefaultTool)
	})
	var out [][]string
	seen := map[string]bool{}
	for _, n := range names {
		if tools[n] == nil {
			continue
		}
		for _, p := range tools[n].Programs {
			if len(p.Version) > 0 && !seen[p.Name] {
				seen[p.Name] = true
				out = append(out, p.Version)
			}
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// UnpackagedHint is how to get program where packaging system has no
// package for it, when a registered tool runs that program and says so
// (Program.Unpackaged).
func UnpackagedHint(system, program string) (string, bool) {
	toolsMu.RLock()
	defer toolsMu.RUnlock()
	for _, n := range slices.Sorted(maps.Keys(tools)) {
		for _, p := range tools[n].Programs {
			if h, ok := p.Unpackaged[system]; ok && p.Name == program {
				return h, true
			}
		}
	}
	return "", false
}
