// Package importrules holds no code: its test checks, with go list, that
// lab's packages import each other only as docs/ARCHITECTURE.md
// ("Dependencies") says.
package importrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/lab-bench/lab"

// pkg is what go list says of one of lab's packages (paths relative to
// the module: "providers/libvirt").
type pkg struct {
	Imports []string // lab packages it imports (not its tests)
	Deps    []string // lab packages it depends on, transitively
}

// list runs go list over the module.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goBin, "list", "-json", module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[rel(p.ImportPath)] = pkg{Imports: ours(p.Imports), Deps: ours(p.Deps)}
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages: not lab's module?", len(pkgs))
	}
	return pkgs
}

func rel(p string) string {
	if p == module {
		return "."
	}
	return strings.TrimPrefix(p, module+"/")
}

// ours keeps lab's own packages of paths, relative to the module.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == module || strings.HasPrefix(p, module+"/") {
			out = append(out, rel(p))
		}
	}
	return out
}

// transports are the guest packages that reach a guest rather than drive
// an OS.
var transports = []string{"guest/ssh", "guest/netns"}

// isOSDriver: guest/<os>, a direct child of guest that is neither a
// transport nor a test helper (a new OS is caught without a change here).
// It includes guest/oses, which imports every OS driver: a back end that
// imported it would import them all.
func isOSDriver(p string) bool {
	return path.Dir(p) == "guest" && !slices.Contains(transports, p) && !strings.HasSuffix(p, "test")
}

// isTransport: guest/ssh, guest/netns and their packages.
func isTransport(p string) bool {
	for _, tr := range transports {
		if p == tr || strings.HasPrefix(p, tr+"/") {
			return true
		}
	}
	return false
}

// isProviders: the provider contract and every back end.
func isProviders(p string) bool { return p == "providers" || strings.HasPrefix(p, "providers/") }

// isTool: bench/<tool>, a direct child of bench that is neither the
// registry of every tool (bench/tools) nor a test helper.
func isTool(p string) bool {
	return path.Dir(p) == "bench" && p != "bench/tools" && !strings.HasSuffix(p, "test")
}

// rule is one sentence of ARCHITECTURE.md's "Dependencies".
type rule struct {
	name string
	from func(p string) bool // the packages it constrains
	bad  func(p string) bool // what they must not depend on
	// direct checks imports only; otherwise every dependency, transitive.
	direct bool
	// pending are dependencies (from → to) the rule forbids that another
	// branch of issue 21 removes; while one is left the rule is skipped,
	// not failed, and names it. Delete an entry once it is gone.
	pending map[[2]string]string
}

func is(name string) func(string) bool { return func(p string) bool { return p == name } }

var rules = []rule{
	{name: "machine is a leaf: it imports no lab package", from: is("machine"), bad: func(string) bool { return true }},
	{name: "the provider contract depends on no OS driver", from: is("providers"), bad: isOSDriver},
	{name: "the provider contract does not depend on results, state, spec, plan or engine", from: is("providers"),
		bad: func(p string) bool {
			return slices.Contains([]string{"internal/results", "internal/state", "internal/spec", "internal/plan", "internal/engine"}, p)
		}},
	{name: "a back end imports no OS driver directly (it asks the OS registry: guest.For(os).NICs)", direct: true,
		from: func(p string) bool { return strings.HasPrefix(p, "providers/") && p != "providers/providertest" },
		bad:  isOSDriver},
	{name: "report depends on no tool package (bench/<tool>): what a report draws, the tool's parsed sample carries",
		from: is("internal/report"), bad: isTool},
	{name: "state depends on no OS driver, no transport and nothing of providers", from: is("internal/state"),
		bad: func(p string) bool { return isOSDriver(p) || isTransport(p) || isProviders(p) }},
	{name: "spec depends on no OS driver, no transport and nothing of providers", from: is("internal/spec"),
		bad: func(p string) bool { return isOSDriver(p) || isTransport(p) || isProviders(p) }},
}

// TestRules checks every rule against go list.
func TestRules(t *testing.T) {
	pkgs := list(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			checkRule(t, pkgs, r)
		})
	}
}

func checkRule(t *testing.T, pkgs map[string]pkg, r rule) {
	var skipped []string
	seenPending := map[[2]string]bool{}
	for _, from := range sortedKeys(pkgs) {
		if !r.from(from) {
			continue
		}
		deps := pkgs[from].Deps
		if r.direct {
			deps = pkgs[from].Imports
		}
		for _, to := range deps {
			if !r.bad(to) {
				continue
			}
			if note, ok := r.pending[[2]string{from, to}]; ok {
				seenPending[[2]string{from, to}] = true
				skipped = append(skipped, from+" → "+to+": pending "+note)
				continue
			}
			t.Errorf("%s depends on %s (%s)", from, to, strings.Join(importPath(pkgs, from, to), " → "))
		}
	}
	for edge := range r.pending {
		if !seenPending[edge] {
			t.Errorf("%s no longer depends on %s: delete the pending entry of this rule", edge[0], edge[1])
		}
	}
	if len(skipped) > 0 && !t.Failed() {
		t.Skipf("still violated, each removed by another change:\n%s", strings.Join(skipped, "\n"))
	}
}

// importPath is a shortest chain of imports from one package to another.
func importPath(pkgs map[string]pkg, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			var chain []string
			for ; p != ""; p = prev[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range pkgs[p].Imports {
			if _, seen := prev[q]; !seen {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return []string{from, "…", to}
}

func sortedKeys(m map[string]pkg) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestLayers checks the code against the picture in ARCHITECTURE.md, read
// from the document: every package has a row, and imports only lower rows
// and its parent directory's package (a back end its contract, a tool its
// runner interface, a test helper its package).
func TestLayers(t *testing.T) {
	pic, err := readPicture(architecture)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range checkLayers(pic, list(t)) {
		t.Error(problem)
	}
}

// checkLayers lists, in order, every package without a row and every
// import of a row not lower than the importer's.
func checkLayers(pic picture, pkgs map[string]pkg) []string {
	var problems []string
	for _, p := range sortedKeys(pkgs) {
		rp, err := pic.row(p)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, q := range pkgs[p].Imports {
			rq, err := pic.row(q)
			if err == nil && (rq < rp || q == path.Dir(p)) {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s (row %d) imports %s (row %d): a package imports only lower rows and its parent directory's package", p, rp, q, rq))
		}
	}
	return problems
}
