// Package lockfile reads and writes .lab.lock.hcl, the file beside a spec
// that pins what a lab's results depended on — each machine's template
// identity, kernel and NIC driver, and the benchmark tools' versions — the
// way Terraform's .terraform.lock.hcl pins providers. Commit it: apply warns
// when what it observes drifts from it, and refuses with -locked.
package lockfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/results"
)

// FileName is the lock file's name inside the lab directory.
const FileName = ".lab.lock.hcl"

// Lock is the content of a lock file.
type Lock struct {
	// Machines by resource address ("pair.veth.server").
	Machines map[string]Machine
	// Tools maps a benchmark tool to the version its runs reported
	// ("iperf3" → "iperf 3.12").
	Tools map[string]string
}

// Machine is what a machine's results depended on.
type Machine struct {
	Template string `hcl:"template,optional"` // the provider's template identity
	Kernel   string `hcl:"kernel,optional"`
	Driver   string `hcl:"driver,optional"`
}

// New returns an empty lock.
func New() *Lock { return &Lock{Machines: map[string]Machine{}, Tools: map[string]string{}} }

// FromRecords builds a lock from a run's records (failed runs and warmups
// included: they observed the same machines).
func FromRecords(recs []results.Record) *Lock {
	l := New()
	for _, r := range recs {
		l.Add(r)
	}
	return l
}

// Add records what one run observed; empty values never overwrite.
func (l *Lock) Add(r results.Record) {
	p := r.Provenance
	for _, m := range []struct{ addr, tmpl, kernel, driver string }{
		{p.ServerMachine, p.ServerTemplateID, p.ServerKernel, p.ServerDriver},
		{p.ClientMachine, p.ClientTemplateID, p.ClientKernel, p.ClientDriver},
	} {
		if m.addr == "" {
			continue
		}
		cur := l.Machines[m.addr]
		cur.Template = firstNonEmpty(m.tmpl, cur.Template)
		cur.Kernel = firstNonEmpty(m.kernel, cur.Kernel)
		cur.Driver = firstNonEmpty(m.driver, cur.Driver)
		l.Machines[m.addr] = cur
	}
	if tool := r.Intent.Bench.Tool; tool != "" && p.ToolVersion != "" {
		l.Tools[tool] = p.ToolVersion
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Drift lists, one message each, where observed differs from l. Only what
// both name is compared: a machine or tool the lock does not know yet is
// not drift (a new pair in the spec), nor is a value observed empty.
func (l *Lock) Drift(observed *Lock) []string {
	var out []string
	for _, addr := range slices.Sorted(maps.Keys(observed.Machines)) {
		want, ok := l.Machines[addr]
		if !ok {
			continue
		}
		got := observed.Machines[addr]
		for _, f := range []struct{ name, want, got string }{
			{"template", want.Template, got.Template}, {"kernel", want.Kernel, got.Kernel}, {"driver", want.Driver, got.Driver},
		} {
			if f.want != "" && f.got != "" && f.want != f.got {
				out = append(out, fmt.Sprintf("%s %s: locked %q, observed %q", addr, f.name, f.want, f.got))
			}
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(observed.Tools)) {
		if want, ok := l.Tools[tool]; ok && want != observed.Tools[tool] {
			out = append(out, fmt.Sprintf("%s version: locked %q, observed %q", tool, want, observed.Tools[tool]))
		}
	}
	return out
}

// Read reads dir's lock file. A missing file is (nil, "", nil).
func Read(dir string) (*Lock, string, error) {
	path := filepath.Join(dir, FileName)
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	l, diags := parse(path, src)
	if diags.HasErrors() {
		return nil, "", fmt.Errorf("%s: %s", path, diags.Error())
	}
	return l, Digest(src), nil
}

func parse(path string, src []byte) (*Lock, hcl.Diagnostics) {
	f, diags := hclparse.NewParser().ParseHCL(src, path)
	if diags.HasErrors() {
		return nil, diags
	}
	var raw struct {
		Machines []machineBlock `hcl:"machine,block"`
		Tools    []toolBlock    `hcl:"tool,block"`
	}
	if diags := gohcl.DecodeBody(f.Body, nil, &raw); diags.HasErrors() {
		return nil, diags
	}
	l := New()
	for _, m := range raw.Machines {
		l.Machines[m.Address] = Machine{Template: m.Template, Kernel: m.Kernel, Driver: m.Driver}
	}
	for _, t := range raw.Tools {
		l.Tools[t.Name] = t.Version
	}
	return l, nil
}

type machineBlock struct {
	Address  string `hcl:"address,label"`
	Template string `hcl:"template,optional"`
	Kernel   string `hcl:"kernel,optional"`
	Driver   string `hcl:"driver,optional"`
}

type toolBlock struct {
	Name    string `hcl:"name,label"`
	Version string `hcl:"version"`
}

// Render returns the lock file's text, sorted so it diffs cleanly in git.
func (l *Lock) Render() []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(hclwrite.Tokens{{Type: hclsyntax.TokenComment, Bytes: []byte(
		"# This file is maintained by lab: what this lab's results depended on.\n" +
			"# Commit it beside the spec. `lab apply` warns when what it observes drifts\n" +
			"# from it (and refuses with -locked); `lab init -upgrade` rewrites it from\n" +
			"# the latest run.\n")}})
	for _, addr := range slices.Sorted(maps.Keys(l.Machines)) {
		m := l.Machines[addr]
		body.AppendNewline()
		b := body.AppendNewBlock("machine", []string{addr}).Body()
		for _, a := range []struct{ name, v string }{{"template", m.Template}, {"kernel", m.Kernel}, {"driver", m.Driver}} {
			if a.v != "" {
				b.SetAttributeValue(a.name, cty.StringVal(a.v))
			}
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(l.Tools)) {
		body.AppendNewline()
		body.AppendNewBlock("tool", []string{tool}).Body().SetAttributeValue("version", cty.StringVal(l.Tools[tool]))
	}
	return f.Bytes()
}

// Write writes the lock to dir atomically and returns its digest.
func Write(dir string, l *Lock) (string, error) {
	src := l.Render()
	if err := atomicfile.Write(filepath.Join(dir, FileName), src, 0o644); err != nil {
		return "", fmt.Errorf("write lock file: %w", err)
	}
	return Digest(src), nil
}

// Digest is the sha256 (hex) of a lock file's bytes.
func Digest(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}
