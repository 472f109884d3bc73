// Package spec decodes a lab directory (*.hcl files) into the typed model:
// lab, variable, provider, template, pair and experiment blocks. Provider
// bodies are kept undecoded for the provider's own schema (phase two).
// Every diagnostic carries the source range of what it is about.
package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/lab-bench/lab/internal/hclfuncs"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Options carries variable values from the command line and environment.
type Options struct {
	// Vars are raw "-var name=value" strings, in order. A value is parsed
	// as an HCL expression unless the variable's type is string (or not
	// given), like Terraform does.
	Vars []string
	// VarFiles are -var-file paths: HCL files of name = value.
	VarFiles []string
	// Env is os.Environ()-style. LAB_VAR_<name>=value sets variable <name>;
	// env(name) in expressions reads from it too. Precedence, lowest first:
	// default < Env < VarFiles < Vars.
	Env []string
	// KnownProviders are the provider type names accepted in provider
	// blocks; nil accepts any.
	KnownProviders []string
	// SharesHostKernel says whether a provider type's guests share this
	// host's kernel (network namespaces: only namespaced sysctls may be
	// set on them); the back end declares it (providers.SharesHostKernel).
	// nil: no provider's guests do.
	SharesHostKernel func(providerType string) bool
	// UnknownRequired is validate's mode, as in `terraform validate`: a
	// required variable given no value is not an error but an unknown
	// value of its declared type (cty.UnknownVal), which type-checks in
	// every expression and whose checks are left for plan.
	UnknownRequired bool
}

// rootSchema lists the top-level block kinds.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "lab", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "provider", LabelNames: []string{"type", "name"}},
		{Type: "template", LabelNames: []string{"name"}},
		{Type: "pair", LabelNames: []string{"name"}},
		{Type: "experiment", LabelNames: []string{"name"}},
		{Type: "published", LabelNames: []string{"name"}},
		{Type: "expect", LabelNames: []string{"name"}},
	},
}

// loader carries what decoding needs across block kinds.
type loader struct {
	lab      *Lab
	opts     Options
	funcs    map[string]function.Function
	varDecls map[string]*variableDecl
	// varObject is var.* in expressions: the variables' values, unknown
	// for those without a valid value.
	varObject map[string]cty.Value
	// ctx evaluates top-level expressions: var.* and functions.
	ctx *hcl.EvalContext
	// runs counts the runs of the experiments decoded so far (MaxRuns).
	runs int
}

// Load reads every *.hcl file in dir (sorted by name), decodes and
// validates it. The returned *Lab is never nil (Files is always set so that
// diagnostics can be rendered) but is only complete when !diags.HasErrors().
func Load(dir string, opts Options) (*Lab, hcl.Diagnostics) {
	all, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	// Hidden files are not spec: .lab.lock.hcl lives beside it.
	var names []string
	for _, n := range all {
		if !strings.HasPrefix(filepath.Base(n), ".") {
			names = append(names, n)
		}
	}
	if err != nil || len(names) == 0 {
		l := newLab(dir)
		detail := "A lab directory holds one or more *.hcl files."
		if err != nil {
			detail = err.Error()
		}
		// No Subject: there is no file or line to point at, only the directory.
		return l, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "No lab files in " + dir, Detail: detail}}
	}
	files := map[string][]byte{}
	var diags hcl.Diagnostics
	for _, n := range names {
		b, err := readLabFile(n)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read lab file",
				Detail: err.Error() + ".", Subject: fileStart(n)})
			continue
		}
		files[n] = b
	}
	if diags.HasErrors() {
		return newLab(dir), diags
	}
	l, diags := LoadFiles(dir, files, opts)
	for _, n := range names {
		if why := diagtext.HiddenSource(dir, n); why != "" {
			if l.hidden == nil {
				l.hidden = map[string]string{}
			}
			l.hidden[n] = why
		}
	}
	return l, diags
}

func newLab(dir string) *Lab {
	return &Lab{
		Dir:       dir,
		Files:     map[string]*hcl.File{},
		Variables: map[string]cty.Value{},
		Sensitive: map[string]bool{},
		Providers: map[string]*Provider{},
		Templates: map[string]*Template{},
		Pairs:     map[string]*Pair{},
		Published: map[string]*Published{},
	}
}

// LoadFiles decodes files (name → contents) as the lab of directory dir:
// file() resolves relative to dir ("": the working directory) and the
// *Lab's Dir is dir. Load reads a directory's *.hcl files and calls it; so
// do tests and fuzzers with in-memory files, on the path cmd/lab takes.
func LoadFiles(dir string, files map[string][]byte, opts Options) (*Lab, hcl.Diagnostics) {
	l := &loader{lab: newLab(dir), opts: opts, varDecls: map[string]*variableDecl{},
		varObject: map[string]cty.Value{}}
	l.funcs = hclfuncs.Table(dir, opts.Env, MaxFileSize)
	l.lab.Hash = hashFiles(files)

	names := slices.Sorted(maps.Keys(files))
	var diags hcl.Diagnostics
	var bodies []hcl.Body
	for _, n := range names {
		if len(files[n]) > MaxFileSize {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Lab file too large",
				Detail: fmt.Sprintf("%s has %d bytes; a lab file may have at most %d (1 MiB).", n, len(files[n]), MaxFileSize), Subject: fileStart(n)})
			continue
		}
		f, d := parseLimited(files[n], n)
		diags = append(diags, d...)
		if f == nil {
			f = &hcl.File{Body: hcl.EmptyBody(), Bytes: files[n]} // for the diagnostics' snippets
		}
		if f != nil {
			l.lab.Files[n] = f
			bodies = append(bodies, f.Body)
		}
	}
	if diags.HasErrors() {
		return l.lab, capDiagnostics(diags) // syntax errors first: decoding would only cascade (no values yet)
	}

	byType := map[string][]*hcl.Block{}
	for _, b := range bodies {
		content, d := b.Content(rootSchema)
		diags = append(diags, d...)
		for _, blk := range content.Blocks {
			byType[blk.Type] = append(byType[blk.Type], blk)
		}
	}

	diags = append(diags, l.decodeVariables(byType["variable"])...)
	l.ctx = &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(l.varObject)},
		Functions: l.funcs,
	}
	l.lab.evalCtx = l.ctx
	l.findDerived()
	if len(byType["lab"]) > 0 || !diags.HasErrors() { // a malformed lab block was reported already
		diags = append(diags, l.decodeLab(byType["lab"])...)
	}
	diags = append(diags, l.decodeProviders(byType["provider"])...)
	diags = append(diags, l.decodeTemplates(byType["template"])...)
	diags = append(diags, l.decodePairs(byType["pair"])...)
	diags = append(diags, l.decodeExperiments(byType["experiment"])...)
	diags = append(diags, l.decodePublished(byType["published"])...)
	diags = append(diags, l.decodeTopExpects(byType["expect"])...)
	diags = append(diags, l.resolvePublished()...)
	// A lab without experiments would validate and then do nothing; said
	// only when nothing else is wrong (a broken block may be the one).
	if len(l.lab.Experiments) == 0 && len(byType["lab"]) > 0 && !diags.HasErrors() {
		diags = append(diags, errorf(byType["lab"][0].DefRange, "No experiment",
			"The lab declares no experiment block, so there is nothing to plan or run: add experiment \"<name>\" { pairs = [pair.<name>] … }."))
	}
	return l.lab, capDiagnostics(l.lab.Redact(dropNotKnownYet(diags)))
}

// hashFiles is the sha256 over the sorted base names and contents.
func hashFiles(files map[string][]byte) string {
	type nf struct {
		name string
		body []byte
	}
	var all []nf
	for n, b := range files {
		all = append(all, nf{filepath.Base(n), b})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	h := sha256.New()
	for _, f := range all {
		_, _ = io.WriteString(h, f.name) // a hash never fails to write
		h.Write([]byte{0})
		h.Write(f.body)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteDiagnostics renders diags as HCL's text writer does: summary,
// detail, file:line:col and a source snippet, escaped and cut (see
// diagtext.NewWriter); the source of a file outside the lab directory
// (diagtext.HiddenSource) is not shown. width 0 leaves lines unwrapped.
func (l *Lab) WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, width uint, color bool) error {
	dw := diagtext.NewWriterHiding(w, l.Files, l.hidden, width, color)
	return dw.WriteDiagnostics(capDiagnostics(l.Redact(diags)))
}

// singleBlock returns the one block of a kind, reporting duplicates.
func singleBlock(blocks []*hcl.Block, kind string) (*hcl.Block, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	for _, b := range blocks[min(1, len(blocks)):] {
		diags = append(diags, errorf(b.DefRange, "Duplicate "+kind+" block",
			"Only one %s block is allowed here; the first is at %s.", kind, declaredAt(blocks[0].DefRange)))
	}
	if len(blocks) == 0 {
		return nil, diags
	}
	return blocks[0], diags
}

// checkName validates a block label against a pattern.
func checkName(b *hcl.Block, i int, kind string, pattern interface{ MatchString(string) bool }, rule string) *hcl.Diagnostic {
	if pattern.MatchString(b.Labels[i]) {
		return nil
	}
	return errorf(b.LabelRanges[i], "Invalid "+kind+" name", "%q is not a valid %s name: %s.", b.Labels[i], kind, rule)
}

const (
	labNameRule   = "use 1 to 24 characters: lower-case letters, digits and dashes, starting with a letter"
	blockNameRule = "use letters, digits, underscores and dashes, starting with a letter or underscore (at most 64)"
)
