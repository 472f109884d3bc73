package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bundle"
	"github.com/lab-bench/lab/lockfile"
	"github.com/lab-bench/lab/report"
	"github.com/lab-bench/lab/results"
	"github.com/lab-bench/lab/spec"
)

// runPublish is `lab publish -o DIR [RUN]`: a self-contained bundle of a
// run (bundle package) that `lab reproduce` checks on another machine.
func runPublish(g *globals, args []string) error {
	fl := newFlags(g, "publish", "publish -o DIR [-margin 10%] [-note TEXT] [-var k=v] [-var-file F] [RUN]")
	out := fl.String("o", "", "write the bundle to `DIR` (must not exist, or be empty)")
	margin := percentFlag{v: defaultMargin}
	fl.Var(&margin, "margin", "the equivalence `margin` lab reproduce uses by default (\"10%\" or 0.1)")
	var notes []string
	fl.Func("note", "a note on the publishing machine for the reader (`TEXT`, repeatable), e.g. \"/dev/kvm is kvm-pvm: TCG only\"",
		func(s string) error { notes = append(notes, s); return nil })
	var v varFlags
	v.register(fl)
	if err := parseFlags(fl, args, optionalArg("a run id (default: the latest)")); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("publish needs -o DIR, the directory to write the bundle to")
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	info, recs, err := publishableRun(g, lab, fl.Arg(0))
	if err != nil {
		return err
	}
	tmp, err := newBundleDir(*out)
	if err != nil {
		return err
	}
	// Gone once renamed into place; after a failure, a leftover
	// .lab-publish-* directory beside DIR is all a failed removal leaves.
	defer func() { _ = os.RemoveAll(tmp) }()
	b := bundle.Info{Format: bundle.Format, Lab: lab.Name, RunID: info.ID, SpecHash: info.SpecHash, LabVersion: info.LabVersion,
		Published: time.Now().UTC(), Margin: margin.v, BackEnds: backEnds(recs), HostNotes: append(accelNotes(lab), notes...),
		Reproduce: "lab reproduce " + shellQuote(filepath.Base(filepath.Clean(*out)))}
	lock, err := fillBundle(g, lab, v, info, recs, tmp, &b)
	if err != nil {
		return err
	}
	if err := writePost(tmp, b, info, recs, lock); err != nil {
		return err
	}
	if err := refuseSecrets(lab, tmp); err != nil {
		return err
	}
	if err := bundle.Sign(tmp); err != nil {
		return err
	}
	if err := os.Remove(*out); err != nil && !errors.Is(err, fs.ErrNotExist) { // an empty directory
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Rename(tmp, *out); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := os.Chmod(*out, 0o755); err != nil { // MkdirTemp made it 0700
		return fmt.Errorf("publish: %w", err)
	}
	fmt.Fprintf(g.stdout, "Published run %s of lab %q (%d records) to %s.\nCheck it with: %s\n", info.ID, lab.Name, len(recs), *out,
		"lab reproduce "+shellQuote(*out))
	if len(b.OmittedVariables) > 0 {
		fmt.Fprintf(g.stdout, "Sensitive variables left out: %s (a reproducer sets them with -var).\n", strings.Join(b.OmittedVariables, ", "))
	}
	return nil
}

// defaultMargin is the equivalence margin when none is given: 10 % of the
// published mean (docs/ci-recipe.md says where it comes from).
const defaultMargin = 0.10

// publishableRun loads the run to publish: a complete run of this lab made
// with exactly the spec in the lab directory, since that spec goes into
// the bundle.
func publishableRun(g *globals, lab *spec.Lab, arg string) (results.RunInfo, []results.Record, error) {
	rs := results.Store{Dir: resultsDir(g)}
	if arg == "" {
		arg = results.AliasLatest
	}
	id, err := rs.Resolve(arg)
	if err != nil {
		return results.RunInfo{}, nil, err
	}
	info, recs, err := rs.Load(id)
	switch {
	case err != nil:
		return info, nil, err
	case info.Lab != lab.Name:
		return info, nil, fmt.Errorf("run %s belongs to lab %q, not %q", id, info.Lab, lab.Name)
	case info.Status != results.StatusComplete:
		return info, nil, fmt.Errorf("run %s is %s: publish a complete run", id, info.Status)
	case info.SpecHash != lab.Hash:
		return info, nil, fmt.Errorf("the spec changed since run %s: a bundle holds the spec its run was made with; "+
			"restore that spec or publish a run of the current one", id)
	case len(recs) == 0:
		return info, nil, fmt.Errorf("run %s has no records", id)
	}
	return info, recs, nil
}

// newBundleDir checks that out does not exist or is an empty directory
// and makes a temporary directory beside it to fill: the bundle appears
// at out whole or not at all. A symlink at out is refused, naming its
// target: the bundle is renamed into place over out, which would replace
// the link itself (issue 20, section 2).
func newBundleDir(out string) (string, error) {
	if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(out)
		return "", fmt.Errorf("publish -o %s: is a symbolic link (to %s), which the bundle would replace: name the directory itself", out, target)
	}
	entries, err := os.ReadDir(out)
	switch {
	case err == nil && len(entries) > 0:
		return "", fmt.Errorf("publish -o %s: the directory is not empty", out)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("publish -o %s: %w", out, err)
	}
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	return os.MkdirTemp(parent, ".lab-publish-*")
}

// fillBundle copies the spec, lock file, variables and records into dir and
// writes the reports and bundle.json; it reports whether the lab has a
// lock file.
func fillBundle(g *globals, lab *spec.Lab, v varFlags, info results.RunInfo, recs []results.Record, dir string, b *bundle.Info) (bool, error) {
	specDir := filepath.Join(dir, bundle.SpecDir)
	names, err := specFiles(g.dir)
	if err != nil {
		return false, err
	}
	for _, n := range names {
		if err := bundle.CopyFile(filepath.Join(specDir, n), filepath.Join(g.dir, n)); err != nil {
			return false, fmt.Errorf("publish: %w", err)
		}
	}
	lock := false
	switch err := bundle.CopyFile(filepath.Join(specDir, lockfile.FileName), filepath.Join(g.dir, lockfile.FileName)); {
	case err == nil:
		lock = true
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("publish: %w", err)
	}
	vars, omitted := publishedVars(lab)
	b.OmittedVariables = omitted
	if len(vars) > 0 {
		b.VarFile = bundle.VarFile
		if err := os.WriteFile(filepath.Join(specDir, bundle.VarFile), vars, 0o644); err != nil {
			return false, err
		}
	}
	if err := bundle.CopyTree(filepath.Join(dir, bundle.RecordsDir, info.ID), filepath.Join(resultsDir(g), info.ID)); err != nil {
		return false, fmt.Errorf("publish: %w", err)
	}
	groups := results.Group(recs)
	opt := report.Options{Records: recs}
	opt.Outcomes, opt.ChecksNote = reportOutcomes(g, v, info, groups)
	for file, format := range map[string]string{bundle.ReportFile: "html", bundle.PlotFile: "svg"} {
		var buf bytes.Buffer
		if err := report.Render(&buf, format, info, groups, opt); err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			return false, err
		}
	}
	return lock, bundle.WriteInfo(dir, *b)
}

// specFiles are the lab's spec files in dir, as spec.Load reads them:
// *.hcl but hidden ones.
func specFiles(dir string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "*.hcl"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range all {
		if n := filepath.Base(p); !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	return out, nil
}

// publishedVars renders the values of the lab's variables as a variables
// file, leaving the sensitive ones out (their names come back).
func publishedVars(lab *spec.Lab) ([]byte, []string) {
	f := hclwrite.NewEmptyFile()
	var omitted []string
	n := 0
	for _, name := range slices.Sorted(maps.Keys(lab.Variables)) {
		val := lab.Variables[name]
		if lab.Sensitive[name] {
			omitted = append(omitted, name)
			continue
		}
		if !val.IsWhollyKnown() || val.IsNull() {
			continue
		}
		f.Body().SetAttributeValue(name, val)
		n++
	}
	if n == 0 {
		return nil, omitted
	}
	head := "# The values of the lab's variables when its run was published (lab publish).\n"
	return append([]byte(head), hclwrite.Format(f.Bytes())...), omitted
}

// refuseSecrets refuses a bundle any of whose files holds the value of a
// sensitive variable: a default in the spec, a value a tool echoed into a
// record. Values shorter than 4 bytes are too common to tell.
func refuseSecrets(lab *spec.Lab, dir string) error {
	var secrets []string
	var names []string
	for name := range lab.Sensitive {
		if v, ok := lab.Variables[name]; ok && v.IsKnown() && !v.IsNull() && v.Type() == cty.String && len(v.AsString()) >= 4 {
			secrets, names = append(secrets, v.AsString()), append(names, name)
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, s := range secrets {
			if bytes.Contains(data, []byte(s)) {
				rel, _ := filepath.Rel(dir, path)
				return fmt.Errorf("publish: %s would hold the value of the sensitive variable %q: refusing to publish it", rel, names[i])
			}
		}
		return nil
	})
}

// backEnds are the distinct provider types the records ran on.
func backEnds(recs []results.Record) []string {
	var out []string
	for _, r := range recs {
		if p := r.Provenance.Provider; p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// accelNotes says which libvirt providers ran under TCG (accel = "tcg"):
// emulated CPUs, figures far below what KVM gives.
func accelNotes(lab *spec.Lab) []string {
	var out []string
	for _, key := range slices.Sorted(maps.Keys(lab.Providers)) {
		pb := lab.Providers[key]
		if pb.Type != "libvirt" {
			continue
		}
		content, _, _ := pb.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "accel"}}})
		a, ok := content.Attributes["accel"]
		if !ok {
			continue
		}
		if v, d := a.Expr.Value(lab.EvalContext()); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && v.AsString() == "tcg" {
			out = append(out, fmt.Sprintf("provider %q: TCG (QEMU emulation), no KVM acceleration: figures are far below what KVM gives", key))
		}
	}
	return out
}

// writePost writes POST.md with the publishing machine's provenance.
func writePost(dir string, b bundle.Info, info results.RunInfo, recs []results.Record, lock bool) error {
	host, _ := os.Hostname()
	p := bundle.Post{Info: b, Run: info, Groups: results.Group(recs), Host: host, LockFile: lock, Command: b.Reproduce,
		Kernel: readTrimmed("/proc/sys/kernel/osrelease"), LoadAvg: loadAverage()}
	var buf bytes.Buffer
	if err := bundle.WritePost(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, bundle.PostFile), buf.Bytes(), 0o644)
}

func readTrimmed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// loadAverage is /proc/loadavg's three load averages ("" elsewhere).
func loadAverage() string {
	f := strings.Fields(readTrimmed("/proc/loadavg"))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and "-_./=:,+@%".
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c)) {
			safe = false
		}
	}
	if safe && !strings.HasPrefix(s, "-") {
		return s
	}
	if strings.HasPrefix(s, "-") {
		s = "./" + s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
