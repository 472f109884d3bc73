// Package benchtest is the conformance suite every benchmark tool passes:
// it checks what a tool registers with package bench the way the spec
// loader, the engine's preflight and the CLI use it — the registration,
// its block's schema on a valid and on invalid bodies (alone and inside a
// whole spec, where every refusal must name file:line:column), the
// programs it needs with a package for every guest OS (or, where no
// package exists, how to get the program: bench.Program.Unpackaged), and its parser on
// real output kept in the tool's testdata. A new tool knows it is wired in
// when Conformance passes; docs/TOOLS.md walks through adding one.
//
// The suite runs no benchmark: the tool's own tests run the runner
// against fakes whose replies come from the real tool.
package benchtest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/spec"
)

// Harness says what to check of one tool.
type Harness struct {
	// Tool is the name the tool registers (its block type).
	Tool string
	// Valid is the body of a block that decodes (HCL attributes), and Want
	// the parameters it gives, defaults included.
	Valid string
	Want  bench.Params
	// Invalid are bodies the block refuses, each with the diagnostic's
	// summary.
	Invalid []Refusal
	// Outputs are real outputs of the tool, under the package's testdata/,
	// that Parse must read into a measurement.
	Outputs []Output
}

// Refusal is a block body and the summary of the error it must give.
type Refusal struct {
	Body, Summary string
}

// Output is one run's output as the runner records it (bench.Raw): the
// client's and, if the tool prints one, the server's, as files under
// testdata/.
type Output struct {
	Client, Server string
	// Version is the tool version the runner would have read before the
	// run (for tools that do not print it in their output).
	Version string
}

// Conformance runs the suite against h's tool; every check is a subtest.
func Conformance(t *testing.T, h Harness) {
	t.Helper()
	tool := bench.Lookup(h.Tool)
	if tool == nil {
		t.Fatalf("no tool %q is registered (registered: %v): call bench.Register in the package's init", h.Tool, bench.Names())
	}
	t.Run("registration", func(t *testing.T) { registration(t, tool) })
	t.Run("block alone", func(t *testing.T) { blockAlone(t, tool, h) })
	t.Run("block in a spec", func(t *testing.T) { blockInSpec(t, h) })
	t.Run("programs", func(t *testing.T) { programs(t, tool) })
	t.Run("parse testdata", func(t *testing.T) { parse(t, tool, h) })
}

func registration(t *testing.T, tool *bench.Tool) {
	if !slices.Contains(bench.Names(), tool.Name) {
		t.Errorf("bench.Names() = %v, without %q", bench.Names(), tool.Name)
	}
	if r, err := bench.NewRunner(tool.Name); err != nil || r == nil {
		t.Errorf("bench.NewRunner(%q) = %v, %v; want a runner", tool.Name, r, err)
	}
	for name, a := range tool.Block.Attrs {
		if a == nil {
			t.Errorf("attribute %q has no Attr", name)
		}
	}
	for _, c := range tool.Block.Checks {
		if c.Check == nil {
			t.Errorf("a check of %v has no function", c.Attrs)
		}
		for _, n := range c.Attrs {
			if tool.Block.Attrs[n] == nil {
				t.Errorf("a check reads attribute %q, which the block does not have", n)
			}
		}
	}
	var schema []string
	for _, a := range tool.Block.Schema().Attributes {
		schema = append(schema, a.Name)
	}
	if want := slices.Sorted(maps.Keys(tool.Block.Attrs)); !slices.Equal(schema, want) {
		t.Errorf("schema attributes %v, want %v", schema, want)
	}
	if len(tool.ThroughputSides) == 0 {
		t.Error("ThroughputSides is empty: say which sides of a throughput figure the records carry")
	}
	for _, s := range tool.ThroughputSides {
		if s != spec.SideSender && s != spec.SideReceiver {
			t.Errorf("ThroughputSides has %q; want %q or %q", s, spec.SideSender, spec.SideReceiver)
		}
	}
}

// decode reads body as a block of tool in a file named file.hcl.
func decode(t *testing.T, tool *bench.Tool, file, body string) (bench.Params, hcl.Diagnostics) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(body), file, hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("the harness's body does not parse: %v\n%s", diags, body)
	}
	return tool.Block.Decode(tool.Name, f.Body, hcl.Range{Filename: file, Start: hcl.InitialPos, End: hcl.InitialPos}, nil)
}

func blockAlone(t *testing.T, tool *bench.Tool, h Harness) {
	empty, diags := decode(t, tool, "empty.hcl", "")
	if diags.HasErrors() {
		t.Errorf("an empty block is refused: %v (every attribute needs a default)", diags)
	}
	if empty.Tool != tool.Name || empty.Duration <= 0 {
		t.Errorf("an empty block gives tool %q, duration %s; want %q and a default duration", empty.Tool, empty.Duration, tool.Name)
	}
	got, diags := decode(t, tool, "valid.hcl", h.Valid)
	if diags.HasErrors() {
		t.Fatalf("the valid body is refused: %v", diags)
	}
	if !reflect.DeepEqual(got, h.Want) {
		t.Errorf("the valid body gives\n%+v\nwant\n%+v", got, h.Want)
	}
	if len(h.Invalid) == 0 {
		t.Error("the harness names no invalid body")
	}
	// Every tool measures for a duration, and none can measure zero
	// seconds (bench.MeasuredDurationAttr).
	refusals := append(slices.Clone(h.Invalid), Refusal{"no_such_attribute = 1", "Unsupported argument"},
		Refusal{`duration = "0s"`, "Invalid duration"})
	for _, r := range refusals {
		_, diags := decode(t, tool, "invalid.hcl", r.Body)
		checkRefused(t, diags, r, "invalid.hcl", 1)
	}
}

// checkRefused wants an error with r's summary that names file:line:column,
// at or below line (where the body starts).
func checkRefused(t *testing.T, diags hcl.Diagnostics, r Refusal, file string, line int) {
	t.Helper()
	for _, d := range diags {
		if d.Severity != hcl.DiagError || d.Summary != r.Summary {
			continue
		}
		if d.Subject == nil || filepath.Base(d.Subject.Filename) != file || d.Subject.Start.Line < line || d.Subject.Start.Column < 1 {
			t.Errorf("%q: %q names no file:line:column (subject %v)", r.Body, d.Summary, d.Subject)
		}
		return
	}
	t.Errorf("%q: want an error %q, got %v", r.Body, r.Summary, diags)
}

// bodyLine is the line of specText where the block's body starts.
const bodyLine = 7

// specText is a whole lab whose one experiment runs body in h's block.
func specText(tool, body string) string {
	return fmt.Sprintf("lab \"conf\" {}\ntemplate \"t\" {}\npair \"p\" { template = template.t }\n"+
		"experiment \"e\" {\n  pairs = [pair.p]\n  %s {\n%s\n  }\n}\n", tool, body)
}

func loadSpec(t *testing.T, text string) (*spec.Lab, hcl.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec.Load(dir, spec.Options{})
}

func blockInSpec(t *testing.T, h Harness) {
	lab, diags := loadSpec(t, specText(h.Tool, h.Valid))
	if diags.HasErrors() {
		t.Fatalf("a spec with the valid body does not load: %v", diags)
	}
	cell, diags := lab.Experiments[0].Eval(nil)
	if diags.HasErrors() {
		t.Fatalf("Eval: %v", diags)
	}
	if !reflect.DeepEqual(cell.Bench, h.Want) {
		t.Errorf("the spec's cell runs\n%+v\nwant\n%+v", cell.Bench, h.Want)
	}
	for _, r := range h.Invalid {
		_, diags := loadSpec(t, specText(h.Tool, r.Body))
		checkRefused(t, diags, r, "lab.hcl", bodyLine)
	}
}

func programs(t *testing.T, tool *bench.Tool) {
	roles := map[string]bool{}
	for _, p := range tool.Programs {
		if p.Name == "" {
			t.Error("a program without a name")
		}
		for _, r := range p.Roles {
			if r != "server" && r != "client" {
				t.Errorf("program %s: role %q; want server or client", p.Name, r)
			}
			roles[r] = true
		}
		for _, system := range []string{guest.PackagingDeb, guest.PackagingPorts} {
			if p.Packages[system] == "" && p.Unpackaged[system] == "" {
				t.Errorf("program %s names no package for %s: the missing-program error would have no install hint", p.Name, system)
			}
			if p.Packages[system] != "" && p.Unpackaged[system] != "" {
				t.Errorf("program %s names a package for %s and says it has none", p.Name, system)
			}
		}
	}
	if !roles["server"] || !roles["client"] {
		t.Errorf("programs cover roles %v; want both server and client", slices.Sorted(maps.Keys(roles)))
	}
	if len(bench.ProgramsFor(tool.Name, "router")) != 0 {
		t.Error("a router runs no benchmark tool")
	}
}

func parse(t *testing.T, tool *bench.Tool, h Harness) {
	r := tool.NewRunner()
	if _, err := r.Parse(bench.Raw{}); err == nil {
		t.Error("Parse of an empty output succeeded; want an error (no measurement)")
	}
	if len(h.Outputs) == 0 {
		t.Error("the harness names no output under testdata/")
	}
	for _, o := range h.Outputs {
		raw := bench.Raw{Client: readFile(t, o.Client), Version: o.Version}
		if o.Server != "" {
			raw.Server = readFile(t, o.Server)
		}
		s, err := r.Parse(raw)
		if err != nil {
			t.Errorf("%s: %v", o.Client, err)
			continue
		}
		if s.ThroughputBps <= 0 && s.TransactionsPerSec <= 0 && s.Latency == nil {
			t.Errorf("%s: parsed no throughput, rate or latency: %+v", o.Client, s)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
